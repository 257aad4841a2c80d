/** The one `If-None-Match` check the SDK snapshot and OFREP's bulk answer share (`server/http/etag.ts`). */
import { describe, expect, it } from 'vitest';
import { ifNoneMatch } from '../../../server/http/etag.js';

describe('If-None-Match', () => {
  const etag = '"abc"';
  it.each([
    ['"abc"', true],
    ['W/"abc"', true],
    ['abc', true],
    ['"x", W/"abc"', true],
    ['*', true],
    ['"x", *', true],
    ['"abcd"', false],
    ['"x", "y"', false],
    ['', false],
  ])('%j names %s: %s', (header, expected) => {
    expect(ifNoneMatch(header, etag)).toBe(expected);
  });

  it('no header matches nothing', () => {
    expect(ifNoneMatch(undefined, etag)).toBe(false);
  });
});
