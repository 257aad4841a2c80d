/**
 * The reference server's in-memory model: what the store persists and the handlers read. The
 * kernel's: every record memory holds is storage schema, so its shape is here, whichever domain
 * (`../domains.ts`) writes it through its ops; the domains hold the ops and the rules.
 */

import type {
  EnvSource,
  KeyAccess,
  Actor as WireActor,
  ChangeRequestRef as WireChangeRequestRef,
  HistoryChange as WireHistoryChange,
  HistoryEntry as WireHistoryEntry,
} from '../../../src/core/admin-wire.js';
import type {
  JsonValue,
  Prerequisite,
  Rule,
  Segment,
  Serve,
  Target,
} from '../../../src/core/targeting/types.js';
import type { AnyFlagType, WebhookEventKind } from '../../../src/core/types.js';
import type { AuditRecord as WireAuditRecord } from '../../../src/core/wire/audit.js';
import type { ChangeRequest as WireChangeRequest } from '../../../src/core/wire/changes.js';

/**
 * Access level of an API key (`docs/protocol.md` §2): `full` writes, `read-only` reads
 * everything (SDKs that evaluate locally), `client` only evaluates remotely through OFREP (a
 * browser page in an environment whose rules name people, §12.8).
 */
export type Access = KeyAccess;

export interface ApiKeyGrant {
  key: string;
  access: Access;
}

/**
 * Through which credential a change was made (`docs/protocol.md` §10.3): an API key (by its
 * hint, never the key), the dashboard, or the config file (a seed flag).
 */
export type Actor = WireActor;

/** An API key created in the dashboard: only its SHA-256 digest is kept. */
export interface StoredApiKey {
  /** `key_` + 16 hex characters of the digest. */
  id: string;
  name: string | null;
  access: Access;
  /** Hex SHA-256 of the key. */
  digest: string;
  /** `fw_live_…` + the key's last four characters. */
  hint: string;
  createdAt: string;
  /** Its writes skip the environment's approvals (`docs/protocol.md` §2): a `full` key only; absent, they do not. */
  bypassApprovals?: true;
}

/** Where a project or environment comes from: the config file, the default set-up, the dashboard. */
export type Source = EnvSource;

export interface StoredProject {
  key: string;
  createdAt: string;
}

/**
 * One field of a history entry (`docs/protocol.md` §10.3, §12.5): its old and new values whole;
 * or, for a list of keys (`included`, `excluded`, `targets`) with more than 100 entries on
 * either side, the keys added and removed, counted, with at most 20 of each shown (a target's
 * as `{variant, key}`); a rule's long clause values likewise, as `rules[i].clauses[j].values`
 * (`../flags/history-lists.ts`).
 */
export type HistoryChange = WireHistoryChange;

/** One committed flag or segment change as the history shows it (`docs/protocol.md` §10.3). */
export type HistoryEntry = WireHistoryEntry;

/** The change request a change was applied from, as its history entry names it. */
export type ChangeRequestRef = WireChangeRequestRef;

/** A flag as stored: the management fields plus bookkeeping; targeting only where set (§12). */
export interface StoredFlag {
  key: string;
  type: AnyFlagType;
  enabled: boolean;
  /** Present on rollout flags only. */
  percentage?: number;
  description: string | null;
  /** On `string`, `number` and `json` flags. */
  variants?: Record<string, JsonValue>;
  offVariant?: string;
  fallthrough?: Serve;
  targets?: Target[];
  rules?: Rule[];
  prerequisites?: Prerequisite[];
  salt?: string;
  /** Environment revision of the flag's last change. */
  version: number;
  createdAt: string;
  updatedAt: string;
}

/** A segment as stored (`docs/protocol.md` §12.3): its wire form, with bookkeeping. */
export interface StoredSegment extends Omit<Segment, 'description' | 'version'> {
  description: string | null;
  /** Environment revision of the segment's last change. */
  version: number;
  createdAt: string;
  updatedAt: string;
}

export interface StoredWebhook {
  id: string;
  url: string;
  events: WebhookEventKind[];
  secret: string;
  /** After a rotation: the secret that keeps signing until `previousSecretExpiresAt` (epoch ms). */
  previousSecret?: string;
  previousSecretExpiresAt?: number;
  active: boolean;
  createdAt: string;
}

/** What a webhook request is about (`docs/protocol.md` §8). */
export type WebhookEventType =
  | 'flag.enabled'
  | 'flag.disabled'
  | 'flag.updated'
  | 'segment.updated'
  | ChangeRequestEventType
  | 'webhook.test';

/** The events of a change request's life (`docs/protocol.md` §10.7). */
export type ChangeRequestEventType = Extract<WebhookEventKind, `change_request.${string}`>;

/** The part of a webhook event that is the same on every attempt. */
export type EventPayload =
  | {
      action: 'created' | 'updated' | 'deleted' | 'test';
      flag: { key: string; type: string; enabled: boolean; percentage?: number; description: string | null };
      previous?: Record<string, unknown>;
      /** Who made the change (`docs/protocol.md` §10.6); a test event has none. */
      actor?: Actor;
    }
  | { action: 'created' | 'updated' | 'deleted'; segment: SegmentSummary; actor?: Actor }
  | ChangeRequestEventData;

/**
 * A `change_request.*` event's data (`docs/protocol.md` §10.7): what happened (the type's last
 * word), the request without its changes' bodies, who did it, and the review it was.
 */
export interface ChangeRequestEventData {
  action: 'created' | 'approved' | 'rejected' | 'scheduled' | 'applied' | 'failed';
  changeRequest: ChangeRequestSummary;
  actor: Actor;
  review?: { decision: 'approve' | 'reject'; comment?: string };
}

/** A change request in an event: its changes without their bodies. */
export type ChangeRequestSummary = Omit<StoredChangeRequest, 'changes'> & {
  changes: Array<Omit<StoredChangeRequest['changes'][number], 'body'>>;
};

/** A segment in a `segment.updated` event: its key, description and sizes, never its user keys. */
export interface SegmentSummary {
  key: string;
  description: string | null;
  includedCount: number;
  excludedCount: number;
  ruleCount: number;
}

/** One event to deliver to one webhook, and how its delivery went. */
export interface StoredDelivery {
  /** `dlv_` + random. */
  id: string;
  webhookId: string;
  /** `evt_` + random: the same on every attempt and redelivery; receivers dedupe on it. */
  eventId: string;
  type: WebhookEventType;
  /** ISO time of the change. */
  createdAt: string;
  data: EventPayload;
  status: 'pending' | 'succeeded' | 'failed';
  /** Attempts made so far. */
  attempts: number;
  lastStatusCode?: number;
  lastError?: string;
  /** Epoch ms of the next attempt, while pending. */
  nextAttemptAt?: number;
  updatedAt: string;
  /** Each attempt made, oldest first (`docs/protocol.md` §8.3); absent before the first. */
  log?: AttemptRecord[];
}

/** One attempt at a delivery: when, how long, and what came back. */
export interface AttemptRecord {
  attempt: number;
  /** `delivery.sentAt` of the attempt's body, unix seconds. */
  sentAt: number;
  durationMs: number;
  statusCode?: number;
  error?: string;
  /** The first KiB of the answer's body, as UTF-8 text. */
  response?: string;
  /**
   * The project and environment keys the body carried (a rename changes them for later
   * attempts); absent in records made before they were kept: the environment's current keys.
   */
  names?: { project: string; environment: string };
}

/** One environment of one project: the unit every API key is bound to. */
export interface Environment {
  /**
   * Internal and immutable: the storage scope and stream key. `<project>/<environment>` as first
   * created (`#2`, `#3`... when that id was taken); a rename changes `project` and `environment`
   * only (`env-names.ts`).
   */
  id: string;
  project: string;
  environment: string;
  /** Random id of this environment's history; changes only if the store is wiped. */
  epoch: string;
  /** Incremented by every committed flag change. */
  revision: number;
  flags: Map<string, StoredFlag>;
  segments: Map<string, StoredSegment>;
  webhooks: Map<string, StoredWebhook>;
  /** Webhook deliveries, pending and recent, by id. */
  deliveries: Map<string, StoredDelivery>;
  /** Keys the server generated for this environment (the default project); config keys are not stored. */
  generatedKeys: ApiKeyGrant[];
  /** Where the environment comes from; `default` for one stored before this was recorded. */
  source: Source;
  createdAt: string;
  /** Keys created in the dashboard (digests only). */
  apiKeys: StoredApiKey[];
  /** Committed flag changes, oldest first, at most the server's `historyLimit`. */
  history: HistoryEntry[];
  /** What SDKs reported evaluating (`docs/protocol.md` §13.4); absent until the first report or mark. */
  usage?: EnvUsage;
  /** The audit records of the environment's changes, oldest first (`audit.ts`); absent until the first. */
  audit?: StoredAuditRecord[];
  /**
   * How many people must approve a change of its flags and segments (`docs/protocol.md` §10.7):
   * absent or 0, none (changes are written directly).
   */
  approvals?: number;
  /** Its change requests, by id (`../changes/`); absent until the first. */
  changeRequests?: Map<string, StoredChangeRequest>;
  /**
   * Why this environment could not be restored at start-up (`damaged.ts`, `docs/protocol.md`
   * §7.3): set only on the stand-in that keeps its keys answering `503`; never in `MemoryState`.
   */
  damaged?: string;
}

/**
 * One committed change as the audit log keeps it (`audit.ts`, `docs/protocol.md` §10.6): the wire's
 * record. In an environment's list without `project` and `environment` (its names when read); in
 * the shared list, a record of an environment deleted since names them, and `env` its id.
 */
export type StoredAuditRecord = WireAuditRecord & { env?: string };

/**
 * A change request as an environment keeps it (`../changes/`, `docs/protocol.md` §10.7): the
 * wire's, but what is read against the state now (`approvals`, `conflicts`, `preview`).
 */
export type StoredChangeRequest = Omit<WireChangeRequest, 'approvals' | 'conflicts' | 'preview'>;

/** The keys of a renamed environment, for the environment of that id and epoch only. */
export interface EnvName {
  epoch: string;
  project: string;
  environment: string;
}

/** A person's role (`docs/protocol.md` §10.6): globally, or inside one project. */
export type Role = 'admin' | 'editor' | 'viewer';

/** How a session or a request was signed in (`GET /admin/api/session`'s `via`). */
export type SignedInVia = 'password' | 'oidc' | 'token' | 'adminToken';

/** A person with an account (`../people/`). */
export interface StoredUser {
  /** `usr_` + 16 random hex characters. */
  id: string;
  /** Lower-cased, trimmed: the key people sign in by. */
  email: string;
  name: string;
  role: Role;
  /** Roles inside projects, by project key: each replaces `role` there. */
  projects: Record<string, Role>;
  disabled: boolean;
  /** The scrypt hash (`../people/password.ts`), `null` until the invitation is accepted (or SSO only). */
  password: string | null;
  /** The identity provider's issuer and subject, once signed in through single sign-on. */
  oidc: { issuer: string; subject: string } | null;
  createdAt: string;
}

/** An invitation not used yet: the SHA-256 of its token (the link holds the token). */
export interface StoredInvitation {
  /** Hex SHA-256 of the token. */
  digest: string;
  user: string;
  /** Epoch milliseconds. */
  expires: number;
}

/** A session kept on the server (`../people/`), named by its cookie. */
export interface StoredSession {
  /** `u` + 22 characters of base64url. */
  id: string;
  /** The user signed in; `null` for the admin token. */
  user: string | null;
  via: SignedInVia;
  /** Epoch seconds: made, last seen (at most a few minutes stale), and the absolute end. */
  createdAt: number;
  seen: number;
  expires: number;
}

/** A personal access token: only its digest is kept. */
export interface StoredToken {
  /** `pat_` + 16 hex characters. */
  id: string;
  user: string;
  name: string;
  /** Hex SHA-256 of the token. */
  digest: string;
  createdAt: string;
  /** ISO 8601, or `null`: it does not expire. */
  expiresAt: string | null;
}

/** People, their invitations, sessions and tokens: what spans environments (scope `''`). */
export class People {
  readonly users = new Map<string, StoredUser>();
  readonly invitations = new Map<string, StoredInvitation>();
  readonly sessions = new Map<string, StoredSession>();
  readonly tokens = new Map<string, StoredToken>();
  /** Token ids by digest: how a presented token is found (kept by the domain's ops). */
  readonly tokenIds = new Map<string, string>();
}

/** What memory keeps of ended dashboard sessions (`../admin/sessions.ts`), with what spans environments. */
export interface EndedSessions {
  /** Ended session ids, with their expiry (epoch seconds). */
  ids: Map<string, number>;
  /** Every session expiring before this (epoch seconds) is ended; 0 when none. */
  endedBefore: number;
}

/**
 * The server's state in memory, which it answers from: every environment by id, plus what spans
 * them (projects made in the dashboard, the admin token). It changes only through committed
 * entries (`applier.ts`).
 */
export class MemoryState extends Map<string, Environment> {
  /** Projects created in the dashboard (config and default projects exist through their environments). */
  readonly projects = new Map<string, StoredProject>();
  /** Environments renamed, by id: their keys now (`env-names.ts`); kept with the projects. */
  readonly names = new Map<string, EnvName>();
  /** The admin token the server generated on its first start, if it did. */
  adminToken: string | undefined;
  /** The secret that signs OFREP stream tokens (`docs/protocol.md` §11.4), made on first start. */
  streamSecret: string | undefined;
  /** Dashboard sessions ended on the server (`../admin/sessions.ts`), kept until their own expiry. */
  readonly endedSessions: EndedSessions = { ids: new Map(), endedBefore: 0 };
  /** Accounts, invitations, sessions and personal tokens (`../people/`). */
  readonly people = new People();
  /** How many history entries an environment keeps. */
  historyLimit = 10_000;
  /** How many bytes of JSON an environment's history entries may take (`../flags/history.ts`). */
  historyBytes = 16 * 1024 * 1024;
  /** The audit records of what spans environments, and of environments deleted, oldest first (`audit.ts`). */
  readonly audit: StoredAuditRecord[] = [];
  /** How many audit records each list (an environment's, the shared one) keeps (`audit.ts`). */
  auditLimit = 10_000;
  /** How many bytes of JSON each audit list may take (`audit.ts`). */
  auditBytes = 8 * 1024 * 1024;
  /**
   * Environments whose stored data could not be restored at start-up, by id (`damaged.ts`):
   * stand-ins out of the map, so nothing serves or snapshots them; their stored data is kept.
   */
  readonly damaged = new Map<string, Environment>();
}

/** A stale mark (`docs/protocol.md` §13.7): never stale, or hidden until a time. */
export interface UsageMark {
  permanent: boolean;
  /** Epoch milliseconds, or `null`. */
  snoozedUntil: number | null;
}

/** A client that reported (`docs/protocol.md` §13.4). */
export interface ClientRecord {
  instance: string;
  sdk: string;
  sdkVersion: string;
  runtime: string;
  app: string | null;
  appVersion: string | null;
  eventId: string | null;
  state: string | null;
  firstSeen: number;
  lastSeen: number;
}

/**
 * What an environment keeps of its usage (`docs/protocol.md` §13.4; the usage domain's ops write
 * it, `../usage/`). Maps keep an order every instance shares (insertion order, the commit
 * order), so that a cap drops the same entries everywhere.
 */
export interface EnvUsage {
  /**
   * The environment's usage clock: the newest commit time believed (§13.4). Every age is measured
   * against it. A commit time more than `USAGE_LIMITS.skewMs` after it is believed only once
   * reports keep coming at that time for `USAGE_LIMITS.confirmMs` (`ahead`).
   */
  clock: number;
  /** The commit time of the first report past the clock not yet believed; 0 when none. */
  ahead: number;
  /** The last hour (`floor(ms / HOUR)`) old rows were pruned at. */
  prunedAt: number;
  /** Per UTC hour index, its count rows. */
  hours: Map<number, UsageRows>;
  /** Per UTC day index, its count rows: hours older than their retention, added up. */
  days: Map<number, UsageRows>;
  /** Per flag key, the commit time of the newest report that counted it. */
  last: Map<string, number>;
  /**
   * Keys evaluated that are no flag of the environment, least recently reported first; `ofrep`
   * when only OFREP reported the key (a budget of its own, §13.4).
   */
  unknown: Map<string, UnknownKey>;
  /** Clients by instance id, least recently seen first. */
  clients: Map<string, ClientRecord>;
  /** Report ids counted, with their commit time, oldest first. */
  ids: Map<string, number>;
  marks: Map<string, UsageMark>;
  /** Evaluations a cap kept out of the rows (§13.4): counted, never stored. */
  dropped: number;
  /** Evaluations of unknown keys not kept: not flag keys, or past what a report lists. */
  unknownDropped: number;
}

/**
 * A count row of an hour or a day (§13.4): the evaluations of one flag key, version, variant and
 * reason by one SDK and app, added up.
 */
export interface UsageRow {
  key: string;
  version: number;
  /** `null`: the caller's default was served (`ERROR`). */
  variant: string | null;
  reason: string;
  sdk: string;
  /** `null`: the SDK named no app (and OFREP's own counts). */
  app: string | null;
  count: number;
}

/**
 * An hour's or a day's rows, each under its identity (`rowId` in `../usage/model.ts`, made of its
 * fields; only ever looked up, never taken apart: a row's fields are its own).
 */
export type UsageRows = Map<string, UsageRow>;

export interface UnknownKey {
  count: number;
  last: number;
  ofrep?: true;
}
