/**
 * The dashboard's history in words for a rule whose long clause values the server counted
 * (`docs/protocol.md` §12.5): the sample reads with its full count, the counted field by rule and
 * condition. Pure functions of the dashboard (`dashboard/targeting`).
 */
import { describe, expect, it } from 'vitest';
import { countedChanges, fieldName } from '../../../dashboard/targeting/diff.js';
import { clauseText } from '../../../dashboard/targeting/words.js';

describe('history of long clause values, in words', () => {
  it('a sampled clause says how many values it holds, not how many the sample shows', () => {
    const values = Array.from({ length: 20 }, (_, i) => `u${i}`);
    const clause = { attribute: 'key', op: 'in', values, valuesCount: 4977 } as never;
    expect(clauseText(clause)).toMatch(/and 4,972 more$/);
  });

  it('names a counted field by rule and condition, and reads its counts', () => {
    expect(fieldName('rules[1].clauses[0].values')).toBe('Rule 2, condition 1, values');
    expect(fieldName('rules')).toBe('Rules');
    expect(
      countedChanges({
        field: 'rules[1].clauses[0].values',
        added: ['a'],
        removed: ['b', 'c'],
        addedCount: 1,
        removedCount: 30,
      }),
    ).toEqual(['added 1 value: a', 'removed 30 values: b, c and 28 more']);
  });
});
