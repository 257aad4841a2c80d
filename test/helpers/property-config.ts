/**
 * Shared settings of the property-based tests: one seed for every `fc.assert`, from
 * `PROPERTY_SEED` when set (to replay a failure) or a fixed default, so runs are reproducible.
 */
import fc from 'fast-check';

const fromEnv = process.env.PROPERTY_SEED;
export const PROPERTY_SEED = fromEnv !== undefined && fromEnv !== '' ? Number(fromEnv) : 20_261_122;
if (!Number.isSafeInteger(PROPERTY_SEED)) throw new Error(`PROPERTY_SEED must be an integer, got ${fromEnv}`);

/** `fc.assert` with the shared seed and `numRuns` runs. */
export function check<Ts>(property: fc.IProperty<Ts>, numRuns: number): void {
  fc.assert(property, { seed: PROPERTY_SEED, numRuns });
}
