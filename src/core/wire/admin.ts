/**
 * The types of `../schemas/admin.ts`, written by `npm run wire-types`: do not edit; change
 * the schema and run it again.
 */

import type { JsonValue } from '../json-value.js';
import type { Flag, UpdateFlagInput } from './flags.js';
import type { SessionUser, SignedInVia } from './people.js';
import type { UsageCountReason } from './sdk.js';

/** Who made a change (`docs/protocol.md` §10.6): a user, a personal token and its user, an API key, the admin token, or the system. */
export interface Actor {
  /** Who made a change: a signed-in `user`, a personal access `token` (acting as its user), an environment `apiKey`, the `adminToken`, or the `system` (the config file, a scheduled change). */
  type: ActorType;
  /** The actor's id: a user's or a token's id, an API key's hint, `admin-token`, or what the system acted as (`config`). */
  id: string;
  /** How the actor reads on screen: a display name, a key or token name. */
  name: string;
  /** An API key's hint (`fw_live_…` and its last four characters). */
  hint?: string;
  /** The user a personal access token acts as. */
  user?: {
    id: string;
    name: string;
  };
}

/** Who made a change: a signed-in `user`, a personal access `token` (acting as its user), an environment `apiKey`, the `adminToken`, or the `system` (the config file, a scheduled change). */
export type ActorType = 'user' | 'token' | 'apiKey' | 'adminToken' | 'system';

/** `event: change`: a committed flag change in environment `env` (`PROJECT/ENVIRONMENT`). */
export interface AdminChangeEvent {
  /** `PROJECT/ENVIRONMENT`. */
  env: string;
  revision: number;
  /** The flag's key. */
  flag?: string;
}

/** An API key as the keys list shows it (never its value). */
export interface ApiKeyView {
  /** `key_` + 16 hex characters of the key's SHA-256 digest. */
  id: string;
  name: string | null;
  /** What a key opens (§2): `full` writes, `read-only` reads, `client` only evaluates through OFREP. */
  access: KeyAccess;
  /** `fw_live_…` + the key's last four characters. */
  hint: string;
  /** Where a key comes from: the config file (not revocable here), the default project's printed keys, the dashboard. */
  source: KeySource;
  createdAt: string | null;
  revocable: boolean;
  /** Whether its writes skip the environment's approvals (a `full` key only): what automation that cannot wait for a review uses. */
  bypassApprovals: boolean;
}

/** The change request a change was applied from (`docs/protocol.md` §10.7). */
export interface ChangeRequestRef {
  id: string;
  title: string;
  /** The people who approved it (the `actor` is its author). */
  approvedBy: Actor[];
}

/** An environment of a copy, at its revision (after the copy, for `to` of its answer). */
export interface CopyEnvRef {
  project: string;
  environment: string;
  revision: number;
}

/** `POST /admin/api/copy-flags`: with the revisions the preview answered. */
export interface CopyFlagsApplyInput {
  /** The environment copied from: `PROJECT/ENVIRONMENT`, e.g. `acme/staging`. */
  from: string;
  /** The environment copied to: `PROJECT/ENVIRONMENT`, e.g. `acme/staging`. */
  to: string;
  /** The flags to copy; left out, every flag. */
  flags?: readonly string[];
  /** The target's revision the preview answered. */
  expectedRevision: number;
  /** The source's revision the preview answered. */
  expectedSourceRevision?: number;
}

/** `POST /admin/api/copy-flags/preview`: from and to `PROJECT/ENVIRONMENT`; no `flags`, every flag. */
export interface CopyFlagsInput {
  /** The environment copied from: `PROJECT/ENVIRONMENT`, e.g. `acme/staging`. */
  from: string;
  /** The environment copied to: `PROJECT/ENVIRONMENT`, e.g. `acme/staging`. */
  to: string;
  /** The flags to copy; left out, every flag. */
  flags?: readonly string[];
}

/** The answer of the preview, and of the copy (what was done). */
export interface CopyPreview {
  /** An environment of a copy, at its revision (after the copy, for `to` of its answer). */
  from: CopyEnvRef;
  /** An environment of a copy, at its revision (after the copy, for `to` of its answer). */
  to: CopyEnvRef;
  flags: FlagCopy[];
  segments: SegmentCopy[];
}

/** The `201` of `POST .../keys`: the key with its full value, shown this once. */
export interface CreatedApiKey {
  /** `key_` + 16 hex characters of the key's SHA-256 digest. */
  id: string;
  name: string | null;
  /** What a key opens (§2): `full` writes, `read-only` reads, `client` only evaluates through OFREP. */
  access: KeyAccess;
  /** `fw_live_…` + the key's last four characters. */
  hint: string;
  /** Where a key comes from: the config file (not revocable here), the default project's printed keys, the dashboard. */
  source: KeySource;
  createdAt: string | null;
  revocable: boolean;
  /** Whether its writes skip the environment's approvals (a `full` key only): what automation that cannot wait for a review uses. */
  bypassApprovals: boolean;
  /** The key, shown this once. */
  key: string;
}

/** How many approvals a change of the environment's flags and segments needs: 0 (off) to 10. */
export type EnvApprovals = number;

/** `PATCH /admin/api/environments/:project/:env`: a rename (`key`, the flag key rules, §3.1; one the dashboard made), the approvals its changes need (`approvals`), or both. */
export interface EnvPatchInput {
  /** The new key (a rename). */
  key?: string;
  /** How many approvals a change of the environment's flags and segments needs: 0 (off) to 10. */
  approvals?: EnvApprovals;
}

/** Where a project or environment comes from: the config file, the default set-up, the dashboard. */
export type EnvSource = 'config' | 'default' | 'dashboard';

/** An environment as the overview lists it (and a creation or rename answers it). */
export interface EnvView {
  project: string;
  key: string;
  /** Where a project or environment comes from: the config file, the default set-up, the dashboard. */
  source: EnvSource;
  createdAt: string | null;
  /** Open SDK event streams now (§10.4). */
  streams: number;
  flags: number;
  revision: number;
  /** How many approvals a change of its flags and segments needs (`0`: none, written directly); `/api/v1` writes by a key without `bypassApprovals` are refused `403 APPROVAL_REQUIRED`. */
  approvals: number;
}

/** The answer: the saved flag's, and the draft's when one was sent. */
export interface EvaluateAnswer {
  /** What a flag serves a user, as the SDK's `getDetail` says it (§9, §12.4). */
  saved: Served;
  draft?: Served | Refused;
}

/** `POST /admin/api/evaluate`: one flag of `PROJECT/ENVIRONMENT` for a user, as saved and as `draft`. */
export interface EvaluateInput {
  /** The environment: `PROJECT/ENVIRONMENT`, e.g. `acme/staging`. */
  environment: string;
  /** The flag's key. */
  flag: string;
  /** `{key?, ...attributes}`: at most 1000 attributes, `key` a string. */
  user: Record<string, unknown>;
  /** Body of `PATCH /flags/:key`; every field optional. */
  draft?: UpdateFlagInput;
}

/** What a copy does to one flag. */
export interface FlagCopy {
  key: string;
  status: 'created' | 'changed' | 'unchanged' | 'conflict';
  /** What the copy changes in the target, as the history would record it; a creation: every field, `from: null`. */
  changes: HistoryChange[];
  /** Why the flag cannot be copied (`conflict` only). */
  reason?: string;
}

/** One field of a history entry: its old and new values whole; or, for a list of keys (`included`, `excluded`, `targets`, a rule's long clause values) with more than 100 entries on either side, the keys added and removed, counted, with at most 20 of each shown (§12.5). */
export type HistoryChange =
  | {
      field: string;
      from: unknown;
      to: unknown;
    }
  | {
      field: string;
      added: (
        | string
        | {
            variant: string;
            key: string;
          }
      )[];
      removed: (
        | string
        | {
            variant: string;
            key: string;
          }
      )[];
      addedCount: number;
      removedCount: number;
      from?: undefined;
      to?: undefined;
    };

/** One committed flag or segment change (`GET .../history`, newest first). */
export interface HistoryEntry {
  revision: number;
  /** ISO 8601 date and time, UTC */
  at: string;
  /** The flag's key; for a segment change, `segment:<key>`. */
  flag: string;
  /** `copied`: the flag was copied to another environment (`copiedTo`); nothing changed here. */
  action: 'created' | 'updated' | 'deleted' | 'copied';
  changes: HistoryChange[];
  /** Who made a change (`docs/protocol.md` §10.6): a user, a personal token and its user, an API key, the admin token, or the system. */
  actor: Actor;
  /** The change came from copying flags: from `PROJECT/ENVIRONMENT`. */
  copiedFrom?: string;
  /** The flag was copied to `PROJECT/ENVIRONMENT`. */
  copiedTo?: string;
  /** The change request a change was applied from (`docs/protocol.md` §10.7). */
  changeRequest?: ChangeRequestRef;
}

/** How many entries `GET .../history` answers at most (`?limit=`). */
export type HistoryLimit = number;

/** What a key opens (§2): `full` writes, `read-only` reads, `client` only evaluates through OFREP. */
export type KeyAccess = 'full' | 'read-only' | 'client';

/** `{key}` of a new project or environment, or of a rename: the flag key rules (§3.1). */
export interface KeyInput {
  /** The new key. */
  key: string;
}

/** Where a key comes from: the config file (not revocable here), the default project's printed keys, the dashboard. */
export type KeySource = 'config' | 'generated' | 'dashboard';

/** `POST .../keys`: a new key's access, name (at most 100 characters) and whether it bypasses approvals. */
export interface NewApiKeyInput {
  /** What a key opens (§2): `full` writes, `read-only` reads, `client` only evaluates through OFREP. */
  access: KeyAccess;
  /** Its name, trimmed; empty or `null`: none. */
  name?: string | null;
  /** Its writes skip the environment's approvals (default `false`); a `full` key only (`400` on another access). */
  bypassApprovals?: boolean;
}

/** `GET /admin/api/overview`. */
export interface Overview {
  projects: ProjectView[];
}

/** A project as the overview lists it, with its environments (a creation: none yet). */
export interface ProjectView {
  key: string;
  /** Where a project or environment comes from: the config file, the default set-up, the dashboard. */
  source: EnvSource;
  createdAt: string | null;
  environments: EnvView[];
}

/** The draft could not be saved as it is: why, as a `PATCH` would say it (`CONFLICT`: it removes a variant still in use). */
export interface Refused {
  error: 'VALIDATION_ERROR' | 'CONFLICT';
  message: string;
}

/** A segment the copied rules name: `created` with them, or `kept` (the target's own, never overwritten). */
export interface SegmentCopy {
  key: string;
  status: 'created' | 'kept';
  /** Whether a kept segment is defined otherwise in the source. */
  differs: boolean;
}

/** What a flag serves a user, as the SDK's `getDetail` says it (§9, §12.4). */
export interface Served {
  value: JsonValue | null;
  variant?: string;
  /** The reasons a count row may carry: an evaluation that read a flag (`docs/protocol.md` §9, §12.4). */
  reason: UsageCountReason;
  ruleIndex?: number;
  ruleId?: string;
  prerequisiteKey?: string;
  bucket?: number;
  split?: true;
  static?: true;
  errorCode?: 'MALFORMED_FLAG';
  /** `ERROR`: what the evaluator could not do. */
  error?: string;
}

/** `GET /admin/api/session` while signed in (else `401`). */
export interface SessionAnswer {
  signedIn: true;
  /** The person; `null` for the admin token. */
  user: SessionUser | null;
  /** How the request is signed in: a password, single sign-on, a personal token, the admin token. */
  via: SignedInVia;
}

/** `POST /admin/api/session`: an e-mail address and password, or the admin token, exchanged for the session cookie. */
export type SessionInput =
  | {
      email: string;
      password: string;
    }
  | {
      /** The admin token. */
      token: string;
    };

/** `event: streams`: the open SDK streams per environment (`PROJECT/ENVIRONMENT`). */
export type StreamCounts = Record<string, number>;

/** `GET /admin/api/environments/:env/flags`: each flag with its `version` (its `ETag`, §3.3). */
export type VersionedFlag = Flag & {
  /** The flag's `ETag`. */
  version: number;
};
