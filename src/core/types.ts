/**
 * Wire types shared by the SDK, the management client and the reference server, and the types
 * of local evaluation (`User`, `EvaluationDetail`: `./evaluate.ts`), shared by the SDK client,
 * the OpenFeature providers and the server's OFREP endpoints.
 * The single source for their meaning is `docs/protocol.md`.
 */

import type {
  Clause,
  JsonValue,
  Prerequisite,
  Rule,
  Serve,
  Target,
  TargetingFields,
} from './targeting/types.js';

/** The flags `isEnabled` evaluates: on or off, for everyone or for a percentage. */
export type FlagType = 'boolean' | 'rollout';

/** Flags that serve one of their variants' values (`docs/protocol.md` §12). */
export type ValueFlagType = 'string' | 'number' | 'json';

/** Every kind of flag. */
export type AnyFlagType = FlagType | ValueFlagType;

/** The targeting a flag of any type may carry, as the management API shows it (only what is set). */
export interface FlagTargeting {
  targets?: Target[];
  rules?: Rule[];
  prerequisites?: Prerequisite[];
  salt?: string;
}

/** Management representation of a `boolean` flag (`docs/protocol.md` §3.1). */
export interface BooleanFlag extends FlagTargeting {
  key: string;
  type: 'boolean';
  enabled: boolean;
  description: string | null;
  /** Only when it is not `{"variant": "on"}`. */
  fallthrough?: Serve;
}

/** Management representation of a `rollout` flag: a boolean flag plus `percentage` (0..100). */
export interface RolloutFlag extends FlagTargeting {
  key: string;
  type: 'rollout';
  enabled: boolean;
  percentage: number;
  description: string | null;
}

/** Management representation of a `string`, `number` or `json` flag. */
export interface ValueFlag extends FlagTargeting {
  key: string;
  type: ValueFlagType;
  enabled: boolean;
  description: string | null;
  variants: Record<string, JsonValue>;
  offVariant: string;
  fallthrough: Serve;
}

/** A flag as the management API returns it. */
export type Flag = BooleanFlag | RolloutFlag | ValueFlag;

/** The targeting fields a `POST` or `PATCH /flags` body may set (`null` or `[]` clears a list). */
export interface TargetingInput {
  variants?: Record<string, JsonValue>;
  offVariant?: string;
  fallthrough?: Serve;
  targets?: Target[] | null;
  rules?: Array<Omit<Rule, 'id'> & { id?: string }> | null;
  prerequisites?: Prerequisite[] | null;
  salt?: string | null;
}

/** Body of `POST /flags`. */
export interface CreateFlagInput extends TargetingInput {
  key: string;
  type: AnyFlagType;
  description?: string | null;
  /** Only on `rollout` flags; defaults to 0. */
  percentage?: number;
  /** Accepted and ignored: a new flag is always disabled. */
  enabled?: boolean;
}

/** Body of `PATCH /flags/:key`; every field optional. */
export interface UpdateFlagInput extends TargetingInput {
  enabled?: boolean;
  /** Only on `rollout` flags. */
  percentage?: number;
  /** `null` clears the description. */
  description?: string | null;
}

// Webhooks and their deliveries: derived from their schemas (`./schemas/webhooks.ts`).
export type {
  CreatedWebhook,
  CreateWebhookInput,
  UpdateWebhookInput,
  Webhook,
  WebhookDeliveryAttempt,
  WebhookDeliveryRecord,
  WebhookEventKind,
} from './wire/webhooks.js';

/** A segment as `GET /segments` answers it (`docs/protocol.md` §12.3). */
export interface SegmentRecord {
  key: string;
  description: string | null;
  included: string[];
  excluded: string[];
  rules: Array<{ clauses: Clause[] }>;
  createdAt: string;
  updatedAt: string;
}

/**
 * A flag in the SDK representation (`GET /sdk/flags`, stream events): what local
 * evaluation needs, plus `version`, the environment revision of its last change. A plain flag
 * (`boolean` or `rollout` without targeting) is `{key, type, enabled, percentage?, version}`
 * exactly; to an SDK that sends the targeting capability the server also sends the targeting
 * fields that are set, as the management representation carries them (`docs/protocol.md` §12.6).
 */
export interface SdkFlag extends TargetingFields {
  key: string;
  type: AnyFlagType;
  enabled: boolean;
  /** Present on `rollout` flags only. */
  percentage?: number;
  version: number;
}

/**
 * A segment in the SDK representation (`GET /sdk/flags` and `segments:updated` events, to SDKs
 * with the targeting capability): what evaluation needs, no description.
 */
export interface SdkSegment {
  key: string;
  included: string[];
  excluded: string[];
  rules: Array<{ clauses: Clause[] }>;
  /** The environment revision of its last change. */
  version: number;
}

/** Data of a `segments:updated` stream event: the segment, or its deletion. */
export type SdkSegmentUpdate = SdkSegment | { key: string; version: number; deleted: true };

/** Body of `GET /sdk/flags` and data of the stream's `flags:sync` event. */
export interface SdkSnapshot {
  /** Environment revision this snapshot reflects: every change up to it, none after. */
  revision: number;
  /** Identifies one history of the environment; revisions of different epochs are unrelated. */
  epoch: string;
  /** Stream event id of this snapshot (`<epoch>:<revision>`), to resume the stream from. */
  eventId: string;
  /** Every flag of the environment, by key. */
  flags: Record<string, SdkFlag>;
  /** Every segment, by key: sent only to SDKs with the targeting capability. */
  segments?: Record<string, SdkSegment>;
}

/** Data of a `flags:updated` stream event. */
export interface SdkFlagUpdate extends SdkFlag {
  /** Present and true when the flag was deleted. */
  deleted?: true;
}

/** The error body every non-2xx answer carries. */
export interface ErrorBody {
  error: string;
  message: string;
}

/**
 * Who a flag is evaluated for: `{ key, ...attributes }`, or a plain string taken as the key.
 * Rollouts bucket by `key`; a user without one is outside every rollout below 100 %.
 */
export type User = string | { key?: string | null | undefined; [attribute: string]: unknown };

/** Why an evaluation gave its value (`docs/protocol.md` §6, §12.4). */
export type EvaluationReason =
  /** The flag is disabled: its off variant. */
  | 'OFF'
  /** A boolean flag without targeting that is enabled. */
  | 'ON'
  /** An enabled rollout flag (without targeting) whose bucket includes the user (or 100 %). */
  | 'ROLLOUT_IN'
  /** An enabled rollout flag (without targeting) whose bucket excludes the user (or 0 %). */
  | 'ROLLOUT_OUT'
  /** A split (a rollout between 1 and 99 %) and a user without the value it buckets by. */
  | 'MISSING_USER_KEY'
  /** A prerequisite did not serve one of its variants: the off variant (`prerequisiteKey`). */
  | 'PREREQUISITE_FAILED'
  /** The user's key is in one of the flag's targets. */
  | 'TARGET_MATCH'
  /** A rule matched (`ruleIndex`, `ruleId`). */
  | 'RULE_MATCH'
  /** No target or rule matched: the flag's fallthrough. */
  | 'FALLTHROUGH'
  /** No flag of that key: the default was returned. */
  | 'FLAG_NOT_FOUND'
  /** No flags are loaded yet: the default was returned. */
  | 'NOT_READY'
  /** The flag is of another type (`errorCode: 'TYPE_MISMATCH'`), or cannot be evaluated: the default. */
  | 'ERROR';

/** Why an evaluation ended in `ERROR`. */
export type EvaluationErrorCode =
  /** The flag's type does not fit the call (`getString` on a number flag...). */
  | 'TYPE_MISMATCH'
  /** The flag uses something this SDK cannot evaluate (an operator of a newer server, a missing segment). */
  | 'MALFORMED_FLAG';

/** An answer with why (`getDetail`), for a value of type `T`. */
export interface FlagDetail<T> {
  value: T;
  /** The variant served (`on`/`off` for boolean and rollout flags); absent when the default was returned. */
  variant?: string;
  reason: EvaluationReason;
  /** `RULE_MATCH`: the rule's position and id. */
  ruleIndex?: number;
  ruleId?: string;
  /** `PREREQUISITE_FAILED`: the prerequisite that failed. */
  prerequisiteKey?: string;
  /** A rollout without targeting decided by the user's bucket: the bucket (1..100). */
  bucket?: number;
  /** A split chose the variant (a rule's or the fallthrough's). */
  split?: true;
  /**
   * Every user gets this answer: the flag is enabled with no targets, rules, prerequisites or
   * split (a rollout at 0 or 100 % included). OpenFeature's reason `STATIC` (`docs/protocol.md` §11.2).
   */
  static?: true;
  /** The flag's version (environment revision of its last change), when the flag exists. */
  version?: number;
  /** `ERROR`: why. */
  errorCode?: EvaluationErrorCode;
  /** `MALFORMED_FLAG`: what the evaluator could not do (a missing segment, say). */
  errorMessage?: string;
}

/** `isEnabledDetail`'s answer: a boolean with why. */
export type EvaluationDetail = FlagDetail<boolean>;
