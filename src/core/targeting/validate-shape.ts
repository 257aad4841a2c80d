/**
 * The shared parts of targeting validation (`docs/protocol.md` §12): the limits, the error that
 * names a JSON path, and what validation needs from the environment. The shapes themselves are
 * the schemas' (`../schemas/targeting.ts`). No schema here: the dashboard reads the limits.
 */
import type { Prerequisite } from './types.js';

/** The limits of targeting (`docs/protocol.md` §12.5). */
export const TARGETING_LIMITS = {
  variants: 100,
  variantBytes: 32 * 1024,
  rules: 100,
  clauses: 100,
  values: 10_000,
  targetKeys: 10_000,
  prerequisites: 10,
  prerequisiteDepth: 5,
  segmentKeys: 50_000,
  patternLength: 1000,
} as const;

export const NAME_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

/** A value at `path` is not what `docs/protocol.md` §12 allows. */
export class TargetingInvalid extends Error {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`${path}: ${reason}`);
  }
}

/** What validation needs from the environment. */
export interface TargetingRefs {
  /** The variants of another flag of the environment, or `undefined` when there is none. */
  variantsOf(flag: string): readonly string[] | undefined;
  /** The prerequisites of another flag (to find cycles and depth). */
  prerequisitesOf(flag: string): readonly Prerequisite[];
  hasSegment(key: string): boolean;
}

/** Refuses a pattern the linear-time matcher cannot run (lookaround, backreferences...): the reason, or `undefined`. */
export type PatternCheck = (pattern: string) => string | undefined;

export const kind = (value: unknown): string =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'an array'
      : typeof value === 'object'
        ? 'an object'
        : `a ${typeof value}`;

export function check(condition: boolean, path: string, reason: string): asserts condition {
  if (!condition) throw new TargetingInvalid(path, reason);
}
