/** Validation of segment bodies (`docs/protocol.md` §12.3). */
import type { Static } from '@sinclair/typebox';
import { CreateSegmentInput, UpdateSegmentInput } from '../schemas/segments.js';
import type { Segment } from './types.js';
import { checkStructure, validateClauses } from './validate-clauses.js';
import { check, type PatternCheck, TARGETING_LIMITS, type TargetingRefs } from './validate-shape.js';

/**
 * Validates a segment body (`POST /segments`, or `PATCH` with `partial`): its structure by its
 * schema, then what needs the environment (the segments its clauses name, their operands).
 */
export function validateSegment(
  body: unknown,
  refs: TargetingRefs,
  patterns: PatternCheck | undefined,
  partial: boolean,
): Partial<Segment> {
  const s: Static<typeof UpdateSegmentInput> & { key?: string } = partial
    ? checkStructure(UpdateSegmentInput, body)
    : checkStructure(CreateSegmentInput, body);
  const out: Partial<Segment> = {};
  if (!partial) out.key = s.key!;
  if (s.description !== undefined) out.description = s.description;
  let keys = 0;
  for (const field of ['included', 'excluded'] as const) {
    const items = s[field];
    if (items === undefined) continue;
    keys += items?.length ?? 0;
    out[field] = [...new Set(items ?? [])];
  }
  checkSegmentKeys(keys);
  if (s.rules !== undefined)
    out.rules = (s.rules ?? []).map((r, i) => ({
      clauses: validateClauses(r.clauses, `rules[${i}].clauses`, refs, patterns, true),
    }));
  return out;
}

/** Refuses a segment whose `included` and `excluded` lists hold more than the limit together. */
export function checkSegmentKeys(keys: number): void {
  check(
    keys <= TARGETING_LIMITS.segmentKeys,
    'included',
    `included and excluded hold at most ${TARGETING_LIMITS.segmentKeys} keys in all`,
  );
}
