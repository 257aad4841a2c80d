/**
 * The types of `../schemas/sdk.ts`, written by `npm run wire-types`: do not edit; change
 * the schema and run it again.
 */

import type { AnyFlagType } from './flags.js';
import type { ClauseOperator, Prerequisite, Serve, Target, Variants } from './targeting.js';

/** A `matches` clause's pattern as the server parsed it (`docs/protocol.md` §12.6): SDKs run it and carry no parser. */
export interface MatchesProgram {
  /** Instructions of three integers `op, x, y` (`docs/protocol.md` §12.6). */
  code: number[];
  /** Sorted `lo, hi` code point pairs. */
  ranges: number[];
  /** `[class, flags]` pairs (`["[\p{L}]", "uy"]`), left to the runtime's own tables. */
  sets: [string, string][];
}

/** A clause in the SDK form: a `matches` clause also carries its `program`. */
export interface SdkClause {
  /** A top-level attribute, `key`, `$now`, or a JSON pointer `/a/b` (escaping only `~0` and `~1`). Absent for `inSegment`. */
  attribute?: string;
  /** The operators of a clause (`docs/protocol.md` §12.2). */
  op: ClauseOperator;
  /** The operands, of the operator's kind (§12.2): none for `exists` (which may leave it out), segment keys for `inSegment`. */
  values: unknown[];
  /** Inverts the whole clause, a missing attribute included. */
  negate?: boolean;
  /** Lowercases both sides for `in`, the string operators and `matches`. */
  caseInsensitive?: boolean;
  /** A `matches` clause's pattern as the server parsed it (`docs/protocol.md` §12.6): SDKs run it and carry no parser. */
  program?: MatchesProgram;
}

/** A client's `status().state` (`docs/protocol.md` §9). */
export type SdkClientState =
  | 'idle'
  | 'connecting'
  | 'connected'
  | 'reconnecting'
  | 'polling'
  | 'stale'
  | 'failed'
  | 'closed';

/** A flag in the SDK representation (`GET /sdk/flags`, stream events): what local evaluation needs, and `version`. A plain flag (`boolean` or `rollout` without targeting) is `{key, type, enabled, percentage?, version}` exactly; to an SDK with the targeting capability, the targeting fields that are set follow (`docs/protocol.md` §12.6). */
export interface SdkFlag {
  key: string;
  /** Every kind of flag. */
  type: AnyFlagType;
  enabled: boolean;
  /** On `rollout` flags only. */
  percentage?: number;
  /** The environment revision of its last change. */
  version: number;
  /** Variant name to value (1 to 100, each at most 32 KiB of JSON). `boolean`/`rollout` flags: always `{on: true, off: false}`. */
  variants?: Variants;
  offVariant?: string;
  /** What a rule or the fallthrough serves: one variant, or a split of the users by their bucket. */
  fallthrough?: Serve;
  targets?: Target[];
  rules?: SdkRule[];
  prerequisites?: Prerequisite[];
  salt?: string;
}

/** Data of a `flags:updated` stream event. */
export interface SdkFlagUpdate {
  key: string;
  /** Every kind of flag. */
  type: AnyFlagType;
  enabled: boolean;
  /** On `rollout` flags only. */
  percentage?: number;
  /** The environment revision of its last change. */
  version: number;
  /** Variant name to value (1 to 100, each at most 32 KiB of JSON). `boolean`/`rollout` flags: always `{on: true, off: false}`. */
  variants?: Variants;
  offVariant?: string;
  /** What a rule or the fallthrough serves: one variant, or a split of the users by their bucket. */
  fallthrough?: Serve;
  targets?: Target[];
  rules?: SdkRule[];
  prerequisites?: Prerequisite[];
  salt?: string;
  /** Present and true when the flag was deleted. */
  deleted?: true;
}

/** A rule in the SDK form (its clauses with their programs). */
export interface SdkRule {
  /** Unique in the flag; kept by every later `PATCH` that names it. */
  id: string;
  description?: string;
  clauses: SdkClause[];
  /** What a rule or the fallthrough serves: one variant, or a split of the users by their bucket. */
  serve: Serve;
}

/** A segment in the SDK representation (`GET /sdk/flags` and `segments:updated` events, to SDKs with the targeting capability): what evaluation needs, no description. */
export interface SdkSegment {
  key: string;
  included: string[];
  excluded: string[];
  rules: {
    clauses: SdkClause[];
  }[];
  /** The environment revision of its last change. */
  version: number;
}

/** Data of a `segments:updated` stream event: the segment, or its deletion. */
export type SdkSegmentUpdate =
  | SdkSegment
  | {
      key: string;
      version: number;
      deleted: true;
    };

/** Body of `GET /sdk/flags` and data of the stream's `flags:sync` event (`docs/protocol.md` §5.2). */
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

/** The reasons a count row may carry: an evaluation that read a flag (`docs/protocol.md` §9, §12.4). */
export type UsageCountReason =
  | 'ON'
  | 'OFF'
  | 'ROLLOUT_IN'
  | 'ROLLOUT_OUT'
  | 'MISSING_USER_KEY'
  | 'PREREQUISITE_FAILED'
  | 'TARGET_MATCH'
  | 'RULE_MATCH'
  | 'FALLTHROUGH'
  | 'ERROR';

/** Evaluations of one flag version, variant and reason in a usage report. */
export interface UsageCountRow {
  key: string;
  /** The flag's version the evaluation read (`docs/protocol.md` §5.1). */
  version: number;
  /** The variant served; `null` when the caller's default was (`reason: ERROR`). */
  variant: string | null;
  /** The reasons a count row may carry: an evaluation that read a flag (`docs/protocol.md` §9, §12.4). */
  reason: UsageCountReason;
  count: number;
}

/** Body of `POST /sdk/usage` (`docs/protocol.md` §13.2): what a client evaluated in a window. Fields it does not know are ignored. */
export interface UsageReport {
  /** Random per report, the same on every retry of it. */
  id: string;
  sdk: {
    name: string;
    /** The SDK's version. */
    version: string;
  };
  /** `node/20.20.0`, `deno/2.1.4`, `bun/1.2.0`, `browser`, `workerd`, `unknown`. */
  runtime: string;
  app?: UsageReportApp | null;
  /** Random per client object, the same in all its reports. */
  instance: string;
  /** The `<epoch>:<revision>` the client holds; `null` when it holds none. */
  eventId?: string | null;
  /** A client's `status().state` (`docs/protocol.md` §9). */
  state: SdkClientState;
  /** The counting window, in the SDK's clock (informational). */
  window: {
    start: number;
    /** At least `start`. */
    end: number;
  };
  counts: UsageCountRow[];
  unknown?: UsageUnknownRow[];
  /** Evaluations of further unknown keys, past those listed. */
  unknownDropped?: number;
  /** Evaluations answered before any flag was loaded. */
  notReady?: number;
}

/** The answer to `POST /sdk/usage` (`202`): its counts are durable. */
export interface UsageReportAnswer {
  /** The report's id. */
  id: string;
  /** A report of this id was counted already: nothing was added. */
  duplicate: boolean;
}

/** The application a report comes from, as it names itself (the SDK's `app` option). */
export interface UsageReportApp {
  name: string;
  version?: string | null;
}

/** Evaluations of a key the client holds no flag of; only a flag key is kept, any other is only counted. */
export interface UsageUnknownRow {
  key: string;
  count: number;
}
