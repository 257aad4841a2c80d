/** The one canonical JSON (`src/core/canonical-json.ts`): the same JSON gives the same text. */
import { describe, expect, it } from 'vitest';
import { canonicalJson, sameJson } from '../../../src/core/canonical-json.js';

describe('canonical JSON', () => {
  it('sorts object keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }, 1] })).toBe('{"a":[{"c":3,"d":2},1],"b":1}');
  });

  it('leaves out undefined properties, as JSON.stringify does, and writes undefined in an array as null', () => {
    expect(canonicalJson({ a: undefined, b: [undefined] })).toBe(JSON.stringify({ b: [null] }));
  });

  it('says two values are the same JSON whatever their key order, and tells different ones apart', () => {
    expect(
      sameJson({ attribute: 'a', op: 'in', values: [1] }, { values: [1], op: 'in', attribute: 'a' }),
    ).toBe(true);
    expect(sameJson({ values: [1, 2] }, { values: [2, 1] })).toBe(false);
    expect(sameJson('1', 1)).toBe(false);
  });
});
