/** Validation of segment bodies (`docs/protocol.md` §12.3). */
import type { Static } from '@sinclair/typebox';
import { checkSchema } from '../schemas/check.js';
import { CreateSegmentInput, UpdateSegmentInput } from '../schemas/segments.js';
import { shapeOnly } from '../schemas/targeting.js';
import type { Segment } from './types.js';
import { validateClauses } from './validate-clauses.js';
import {
  check,
  fields,
  list,
  object,
  type PatternCheck,
  TARGETING_LIMITS,
  TargetingInvalid,
  type TargetingRefs,
} from './validate-shape.js';

/** A segment body's shape: its schema, its rules left to `validateClauses` (their messages name values). */
const SHAPES = {
  create: shapeOnly(CreateSegmentInput, ['rules']),
  update: shapeOnly(UpdateSegmentInput, ['rules']),
};

/** Validates a segment body (`POST /segments`, or `PATCH` with `partial`). */
export function validateSegment(
  body: unknown,
  refs: TargetingRefs,
  patterns: PatternCheck | undefined,
  partial: boolean,
): Partial<Segment> {
  const checked = checkSchema(partial ? SHAPES.update : SHAPES.create, body, 'path');
  if (!checked.ok) throw new TargetingInvalid(checked.at, checked.reason);
  const s = checked.value as Static<typeof UpdateSegmentInput> & { key?: string; rules?: unknown };
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
  if (s.rules !== undefined) {
    out.rules = (s.rules === null ? [] : list(s.rules, 'rules', TARGETING_LIMITS.rules)).map((item, i) => {
      const r = object(item, `rules[${i}]`);
      fields(r, `rules[${i}]`, ['clauses']);
      return { clauses: validateClauses(r.clauses, `rules[${i}].clauses`, refs, patterns, true) };
    });
  }
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
