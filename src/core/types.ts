/**
 * Wire types shared by the SDK, the management client and the reference server, and the types
 * of local evaluation (`User`, `EvaluationDetail`: `./evaluate.ts`), shared by the SDK client,
 * the OpenFeature providers and the server's OFREP endpoints.
 * The single source for their meaning is `docs/protocol.md`.
 */

import type { TargetingFields } from './wire/targeting.js';

// Flags as the management API shows and takes them: derived from their schemas (`./schemas/flags.ts`).
export type {
  AnyFlagType,
  BooleanFlag,
  CreateFlagInput,
  Flag,
  FlagType,
  RolloutFlag,
  TargetingInput,
  UpdateFlagInput,
  ValueFlag,
  ValueFlagType,
} from './wire/flags.js';

/** The targeting a flag of any type may carry, as the management API shows it (only what is set). */
export type FlagTargeting = Pick<TargetingFields, 'targets' | 'rules' | 'prerequisites' | 'salt'>;

// The SDK endpoints' shapes (`docs/protocol.md` §5, §12.6): derived from their schemas (`./schemas/sdk.ts`).
export type {
  MatchesProgram,
  SdkClause,
  SdkFlag,
  SdkFlagUpdate,
  SdkRule,
  SdkSegment,
  SdkSegmentUpdate,
  SdkSnapshot,
} from './wire/sdk.js';

// A segment as `GET /segments` answers it: derived from its schema (`./schemas/segments.ts`).
export type { SegmentRecord } from './wire/segments.js';
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
