/**
 * The types of `../schemas/flags.ts`, written by `npm run wire-types`: do not edit; change
 * the schema and run it again.
 */

import type { Prerequisite, Rule, RuleInput, Serve, Target, Variants } from './targeting.js';

/** Every kind of flag. */
export type AnyFlagType = 'boolean' | 'rollout' | 'string' | 'number' | 'json';

/** Management representation of a `boolean` flag (`docs/protocol.md` §3.1). */
export interface BooleanFlag {
  /** Unique in its environment; never changes. */
  key: string;
  type: 'boolean';
  enabled: boolean;
  description: string | null;
  /** What a rule or the fallthrough serves: one variant, or a split of the users by their bucket. */
  fallthrough?: Serve;
  targets?: Target[];
  rules?: Rule[];
  prerequisites?: Prerequisite[];
  salt?: string;
}

/** Body of `POST /flags`. */
export interface CreateFlagInput {
  /** Unique in its environment; never changes. */
  key: string;
  /** Every kind of flag. */
  type: AnyFlagType;
  description?: string | null;
  /** Only on `rollout` flags; defaults to 0. */
  percentage?: number;
  /** Accepted and ignored: a new flag is always disabled. */
  enabled?: boolean;
  /** Variant name to value (1 to 100, each at most 32 KiB of JSON). `boolean`/`rollout` flags: always `{on: true, off: false}`. */
  variants?: Variants;
  /** Default: the first variant. */
  offVariant?: string;
  /** What a rule or the fallthrough serves: one variant, or a split of the users by their bucket. */
  fallthrough?: Serve;
  /** Replaced whole; `null` or `[]` clears it. */
  targets?: Target[] | null;
  /** Replaced whole; `null` or `[]` clears it. */
  rules?: RuleInput[] | null;
  /** Replaced whole; `null` or `[]` clears it. */
  prerequisites?: Prerequisite[] | null;
  /** `null` clears it. */
  salt?: string | null;
}

/** A flag as the management API returns it. */
export type Flag = BooleanFlag | RolloutFlag | ValueFlag;

/** The flags `isEnabled` evaluates: on or off, for everyone or for a percentage. */
export type FlagType = 'boolean' | 'rollout';

/** Management representation of a `rollout` flag: a boolean flag plus `percentage` (0..100). */
export interface RolloutFlag {
  /** Unique in its environment; never changes. */
  key: string;
  type: 'rollout';
  enabled: boolean;
  /** The share of users the flag is on for, 0 to 100; only on `rollout` flags. */
  percentage: number;
  description: string | null;
  targets?: Target[];
  rules?: Rule[];
  prerequisites?: Prerequisite[];
  salt?: string;
}

/** The targeting fields a `POST` or `PATCH /flags` body may set (`null` or `[]` clears a list). */
export interface TargetingInput {
  /** Variant name to value (1 to 100, each at most 32 KiB of JSON). `boolean`/`rollout` flags: always `{on: true, off: false}`. */
  variants?: Variants;
  /** Default: the first variant. */
  offVariant?: string;
  /** What a rule or the fallthrough serves: one variant, or a split of the users by their bucket. */
  fallthrough?: Serve;
  /** Replaced whole; `null` or `[]` clears it. */
  targets?: Target[] | null;
  /** Replaced whole; `null` or `[]` clears it. */
  rules?: RuleInput[] | null;
  /** Replaced whole; `null` or `[]` clears it. */
  prerequisites?: Prerequisite[] | null;
  /** `null` clears it. */
  salt?: string | null;
}

/** Body of `PATCH /flags/:key`; every field optional. */
export interface UpdateFlagInput {
  enabled?: boolean;
  /** Only on `rollout` flags. */
  percentage?: number;
  /** `null` clears the description. */
  description?: string | null;
  /** Variant name to value (1 to 100, each at most 32 KiB of JSON). `boolean`/`rollout` flags: always `{on: true, off: false}`. */
  variants?: Variants;
  /** Default: the first variant. */
  offVariant?: string;
  /** What a rule or the fallthrough serves: one variant, or a split of the users by their bucket. */
  fallthrough?: Serve;
  /** Replaced whole; `null` or `[]` clears it. */
  targets?: Target[] | null;
  /** Replaced whole; `null` or `[]` clears it. */
  rules?: RuleInput[] | null;
  /** Replaced whole; `null` or `[]` clears it. */
  prerequisites?: Prerequisite[] | null;
  /** `null` clears it. */
  salt?: string | null;
}

/** Management representation of a `string`, `number` or `json` flag. */
export interface ValueFlag {
  /** Unique in its environment; never changes. */
  key: string;
  /** Flags that serve one of their variants' values (`docs/protocol.md` §12). */
  type: ValueFlagType;
  enabled: boolean;
  description: string | null;
  /** Variant name to value (1 to 100, each at most 32 KiB of JSON). `boolean`/`rollout` flags: always `{on: true, off: false}`. */
  variants: Variants;
  offVariant: string;
  /** What a rule or the fallthrough serves: one variant, or a split of the users by their bucket. */
  fallthrough: Serve;
  targets?: Target[];
  rules?: Rule[];
  prerequisites?: Prerequisite[];
  salt?: string;
}

/** Flags that serve one of their variants' values (`docs/protocol.md` §12). */
export type ValueFlagType = 'string' | 'number' | 'json';
