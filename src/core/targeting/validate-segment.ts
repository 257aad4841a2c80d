/** Validation of segment bodies (`docs/protocol.md` §12.3). */
import type { Segment } from './types.js';
import { validateClauses } from './validate-clauses.js';
import {
  check,
  fields,
  list,
  object,
  type PatternCheck,
  TARGETING_LIMITS,
  type TargetingRefs,
} from './validate-shape.js';

/** Validates a segment body (`POST /segments`, or `PATCH` with `partial`). */
export function validateSegment(
  body: unknown,
  refs: TargetingRefs,
  patterns: PatternCheck | undefined,
  partial: boolean,
): Partial<Segment> {
  const s = object(body, 'body');
  fields(
    s,
    'body',
    partial
      ? ['description', 'included', 'excluded', 'rules']
      : ['key', 'description', 'included', 'excluded', 'rules'],
  );
  const out: Partial<Segment> = {};
  if (!partial) {
    check(
      typeof s.key === 'string' && /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(s.key),
      'key',
      'must be 1 to 128 letters, digits, ".", "_" or "-", starting with a letter or digit',
    );
    out.key = s.key;
  }
  if ('description' in s) {
    check(
      s.description === null || (typeof s.description === 'string' && s.description.length <= 1000),
      'description',
      'must be a string of at most 1000 characters, or null',
    );
    out.description = s.description as string | null;
  }
  let keys = 0;
  for (const field of ['included', 'excluded'] as const) {
    if (!(field in s)) continue;
    const items = s[field] === null ? [] : list(s[field], field, TARGETING_LIMITS.segmentKeys);
    items.forEach((key, i) => {
      check(typeof key === 'string' && key.length > 0, `${field}[${i}]`, 'must be a non-empty string');
    });
    keys += items.length;
    out[field] = [...new Set(items as string[])];
  }
  checkSegmentKeys(keys);
  if ('rules' in s) {
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
