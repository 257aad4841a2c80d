/**
 * The admin API's shapes (`docs/protocol.md` §10): what the dashboard's API answers and takes,
 * written out once for the server that answers and the page that reads (`dashboard/`). Types
 * only: nothing here reaches a bundle. What the admin API answers as `/api/v1` does (flags,
 * segments, webhooks and their deliveries: `./types.ts`; usage: `./usage-wire.ts`) is that one
 * shape, re-exported here, so the page reads every answer from this module.
 */
import type { JsonValue } from './targeting/types.js';
import type { EvaluationReason, Flag, UpdateFlagInput } from './types.js';

export type { SegmentRecord, WebhookDeliveryAttempt, WebhookDeliveryRecord } from './types.js';
export type {
  FlagUsage,
  FlagUsageSeries,
  StaleFlag,
  StaleReason,
  StaleReport,
  UnknownKeyUsage,
  UsageClient,
  UsageClients,
  UsageMarkAnswer,
  UsageMarkInput,
  UsageRange,
} from './usage-wire.js';

/** `POST /admin/api/session`: the admin token, exchanged for the session cookie (`204`). */
export interface SessionInput {
  token: string;
}

/** `GET /admin/api/session` while signed in (else `401`). */
export interface SessionAnswer {
  signedIn: true;
}

/** Where a project or environment comes from: the config file, the default set-up, the dashboard. */
export type EnvSource = 'config' | 'default' | 'dashboard';

/** An environment as the overview lists it (and a creation or rename answers it). */
export interface EnvView {
  project: string;
  key: string;
  source: EnvSource;
  createdAt: string | null;
  /** Open SDK event streams now (§10.4). */
  streams: number;
  flags: number;
  revision: number;
}

/** A project as the overview lists it, with its environments (a creation: none yet). */
export interface ProjectView {
  key: string;
  source: EnvSource;
  createdAt: string | null;
  environments: EnvView[];
}

/** `GET /admin/api/overview`. */
export interface Overview {
  projects: ProjectView[];
}

/** `{key}` of a new project or environment, or of a rename: the flag key rules (§3.1). */
export interface KeyInput {
  key: string;
}

/** `GET /admin/api/environments/:env/flags`: each flag with its `version` (its `ETag`, §3.3). */
export type VersionedFlag = Flag & { version: number };

/** What a key opens (§2): `full` writes, `read-only` reads, `client` only evaluates through OFREP. */
export type KeyAccess = 'full' | 'read-only' | 'client';

/** Where a key comes from: the config file (not revocable here), the default project's printed keys, the dashboard. */
export type KeySource = 'config' | 'generated' | 'dashboard';

/** An API key as the keys list shows it (never its value). */
export interface ApiKeyView {
  /** `key_` + 16 hex characters of the key's SHA-256 digest. */
  id: string;
  name: string | null;
  access: KeyAccess;
  /** `fw_live_…` + the key's last four characters. */
  hint: string;
  source: KeySource;
  createdAt: string | null;
  revocable: boolean;
}

/** `POST .../keys`: a new key's access and name (at most 100 characters). */
export interface NewApiKeyInput {
  access: KeyAccess;
  name?: string | null;
}

/** The `201` of `POST .../keys`: the key with its full value, shown this once. */
export type CreatedApiKey = ApiKeyView & { key: string };

/** Through which credential a change was made: an API key (by its hint), the dashboard, the config file. */
export type Actor =
  | { type: 'api-key'; hint: string; name?: string }
  | { type: 'dashboard' }
  | { type: 'config' };

/**
 * One field of a history entry: its old and new values whole; or, for a list of keys
 * (`included`, `excluded`, `targets`, a rule's long clause values) with more than 100 entries
 * on either side, the keys added and removed, counted, with at most 20 of each shown (§12.5).
 */
export type HistoryChange =
  | { field: string; from: unknown; to: unknown }
  | {
      field: string;
      added: Array<string | { variant: string; key: string }>;
      removed: Array<string | { variant: string; key: string }>;
      addedCount: number;
      removedCount: number;
      from?: undefined;
      to?: undefined;
    };

/** One committed flag or segment change (`GET .../history`, newest first). */
export interface HistoryEntry {
  revision: number;
  at: string;
  /** The flag's key; for a segment change, `segment:<key>`. */
  flag: string;
  /** `copied`: the flag was copied to another environment (`copiedTo`); nothing changed here. */
  action: 'created' | 'updated' | 'deleted' | 'copied';
  changes: HistoryChange[];
  actor: Actor;
  /** The change came from copying flags: from `PROJECT/ENVIRONMENT`. */
  copiedFrom?: string;
  /** The flag was copied to `PROJECT/ENVIRONMENT`. */
  copiedTo?: string;
}

/** `POST /admin/api/copy-flags/preview`: from and to `PROJECT/ENVIRONMENT`; no `flags`, every flag. */
export interface CopyFlagsInput {
  from: string;
  to: string;
  flags?: readonly string[];
}

/** `POST /admin/api/copy-flags`: with the revisions the preview answered. */
export interface CopyFlagsApplyInput extends CopyFlagsInput {
  expectedRevision: number;
  expectedSourceRevision?: number;
}

/** An environment of a copy, at its revision (after the copy, for `to` of its answer). */
export interface CopyEnvRef {
  project: string;
  environment: string;
  revision: number;
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

/** A segment the copied rules name: `created` with them, or `kept` (the target's own, never overwritten). */
export interface SegmentCopy {
  key: string;
  status: 'created' | 'kept';
  /** Whether a kept segment is defined otherwise in the source. */
  differs: boolean;
}

/** The answer of the preview, and of the copy (what was done). */
export interface CopyPreview {
  from: CopyEnvRef;
  to: CopyEnvRef;
  flags: FlagCopy[];
  segments: SegmentCopy[];
}

/** `POST /admin/api/evaluate`: one flag of `PROJECT/ENVIRONMENT` for a user, as saved and as `draft`. */
export interface EvaluateInput {
  environment: string;
  flag: string;
  /** `{key?, ...attributes}`: at most 1,000 attributes, `key` a string. */
  user: Record<string, unknown>;
  /** The flag's fields as a `PATCH` would send them (§3.1, §12.1). */
  draft?: UpdateFlagInput;
}

/** What a flag serves a user, as the SDK's `getDetail` says it (§9, §12.4). */
export interface Served {
  value: JsonValue | null;
  variant?: string;
  reason: EvaluationReason;
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

/** The draft could not be saved as it is: why, naming the JSON path as a `PATCH` would. */
export interface Refused {
  error: 'VALIDATION_ERROR';
  message: string;
}

/** The answer: the saved flag's, and the draft's when one was sent. */
export interface EvaluateAnswer {
  saved: Served;
  draft?: Served | Refused;
}

/** `event: change`: a committed flag change in environment `env` (`PROJECT/ENVIRONMENT`). */
export interface AdminChangeEvent {
  env: string;
  revision: number;
  /** The flag's key. */
  flag?: string;
}

/** `event: streams`: the open SDK streams per environment (`PROJECT/ENVIRONMENT`). */
export type StreamCounts = Record<string, number>;
