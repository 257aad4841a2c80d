/**
 * Seed and run counts for the property tests, so every run is reproducible.
 *
 *   PROPERTY_SEED=<n>|random   PROPERTY_RUNS=<factor>   (default seed 20261122, factor 1)
 *
 * fast-check prints the seed and the counterexample's path with every failure; rerun with
 * `PROPERTY_SEED=<seed> npx vitest run <file>` to reproduce it.
 */
import fc, { type Parameters } from 'fast-check';

function parseSeed(text: string | undefined): number {
  if (text === undefined || text === '') return 20261122;
  if (text === 'random') return (Math.random() * 2 ** 31) | 0;
  const n = Number(text);
  if (!Number.isInteger(n)) throw new Error(`PROPERTY_SEED must be an integer or "random", got ${text}`);
  return n | 0;
}

export const PROPERTY_SEED = parseSeed(process.env.PROPERTY_SEED);
const FACTOR = Number(process.env.PROPERTY_RUNS ?? 1) || 1;

/** `fc.assert` parameters: the seed above and `numRuns` scaled by `PROPERTY_RUNS`. */
export function params<T>(numRuns: number, extra: Parameters<T> = {}): Parameters<T> {
  return { seed: PROPERTY_SEED, numRuns: Math.max(1, Math.round(numRuns * FACTOR)), ...extra };
}

/** `fc.assert` with the shared seed and `numRuns` runs (scaled by `PROPERTY_RUNS`). */
export function check<Ts>(property: fc.IProperty<Ts>, numRuns: number): void {
  fc.assert(property, params(numRuns));
}
