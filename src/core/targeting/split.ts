/**
 * Serving a variant or a split (`docs/protocol.md` §12.1, §12.4, §6; the vectors of
 * `test/vectors/targeting/splits.json`; every SDK in every language must agree): the bucket
 * value is the first present of `bucketBy` (default `key`; strings as they are, integers as
 * their decimal string, anything else or `""` is missing); `h = murmur3_x86_32(utf8(salt + ":"
 * + value), 0)`, `r = h mod 100000`, `f = (r mod 100) * 1000 + floor(r / 100)`; the served
 * slice is the first whose running sum of weights is greater than `f`. A rollout of `p` % is
 * the split `[{on, 1000p}, {off, rest}]`, which decides as §6 does.
 */
import { type Murmur3Prefix, murmur3Continue, murmur3Prefix } from '../murmur3.js';
import type { User } from '../types.js';
import { type AttributePath, attributeOf, attributePath } from './attributes.js';
import type { Serve } from './types.js';

/** The total weight of a split: 100 % in thousandths of a percent. */
export const SPLIT_TOTAL = 100_000;

export interface CompiledServe {
  /** The variant's index when one is served whoever the user is; -1 for a split that needs a bucket. */
  fixed: number;
  /** Running sums of the slices' weights. */
  bounds: Int32Array;
  /** Each slice's variant index, or -1 for a `null` slice. */
  slices: Int32Array;
  bucketBy: readonly AttributePath[];
  prefix: Murmur3Prefix | undefined;
  /**
   * Whether an integer bucket value counts, as its decimal string (a split's rule); not for a
   * plain rollout, whose key is a string or none (`docs/protocol.md` §6).
   */
  integers: boolean;
}

/**
 * Answers the variant's index, or -1 for `null` where a slice may serve no one (rules only);
 * throws an `Error` for a variant the flag does not have.
 */
export type VariantIndex = (name: string | null) => number;

const NONE = new Int32Array(0);

/** Compiles a serve; `salt` is the flag's (`salt`, else its key). */
export function compileServe(serve: Serve, salt: string, indexOf: VariantIndex): CompiledServe {
  if ('variant' in serve)
    return {
      fixed: indexOf(serve.variant),
      bounds: NONE,
      slices: NONE,
      bucketBy: [],
      prefix: undefined,
      integers: true,
    };
  const { split } = serve;
  const bounds = new Int32Array(split.length);
  const slices = new Int32Array(split.length);
  let sum = 0;
  let fixed = -1;
  split.forEach(({ variant, weight }, i) => {
    if (!Number.isInteger(weight) || weight < 0) sum = Number.NaN;
    bounds[i] = sum += weight;
    slices[i] = indexOf(variant);
    // All the weight on one variant: no bucket needed (all on `null` serves no one either way).
    if (weight === SPLIT_TOTAL) fixed = slices[i]!;
  });
  if (sum !== SPLIT_TOTAL) throw new Error('bad split');
  const by = serve.bucketBy ?? 'key';
  const bucketBy = (Array.isArray(by) ? by : [by]).map(attributePath);
  return {
    fixed,
    bounds,
    slices,
    bucketBy,
    prefix: murmur3Prefix(`${serve.salt ?? salt}:`),
    integers: true,
  };
}

/**
 * Where `text` lands for the hash state `prefix` (`murmur3Prefix(salt + ':')`): `f`, 0..99999.
 * The one bucketing: splits, rollouts and the public `bucketOf` (`f / 1000 + 1`, 1..100) read it.
 */
export function pointOf(prefix: Murmur3Prefix, text: string): number {
  const r = murmur3Continue(prefix, text, SPLIT_TOTAL);
  return (r % 100) * 1000 + Math.floor(r / 100);
}

/**
 * The index of the variant `serve` serves `user`; -1 for a `null` slice, -2 for a split without
 * a bucket value. Where the user landed is left in `serve.point`.
 */
export function served(serve: CompiledServe, user: User | undefined): number {
  if (serve.fixed !== -1) return serve.fixed;
  const { bucketBy, bounds } = serve;
  for (let i = 0; i < bucketBy.length; i++) {
    const value = attributeOf(user, bucketBy[i]!);
    const text =
      typeof value === 'string' ? value : serve.integers && Number.isInteger(value) ? String(value) : '';
    if (text === '') continue;
    const f = pointOf(serve.prefix!, text);
    for (let k = 0; k < bounds.length; k++) if (bounds[k]! > f) return serve.slices[k]!;
    return -1;
  }
  return -2;
}
