/**
 * Hostile suite, sizes and shapes (`docs/protocol.md` §3.4, §11.2): a stored value
 * nested thousands deep is refused when saved (it used to be stored, then break the environment
 * and the store), and an evaluation context has one set of bounds for single and bulk OFREP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
  await t.api('POST', '/flags', {
    key: 'targeted',
    type: 'boolean',
    rules: [{ clauses: [{ attribute: 'tags', op: 'matches', values: ['^a+0$'] }], serve: { variant: 'on' } }],
    fallthrough: { variant: 'off' },
  });
  await t.api('PATCH', '/flags/targeted', { enabled: true });
});
afterAll(() => t?.close());

/** `{"a":{"a":...{"a":1}}}`, `levels` objects deep. */
const nested = (levels: number): unknown => JSON.parse(`${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`);

describe('stored values (§3.4)', () => {
  it('a variant nested 4,100 deep is refused when saved, naming the variant; 32 deep is kept', async () => {
    const deep = await t.api('POST', '/flags', {
      key: 'deep-json',
      type: 'json',
      variants: { a: nested(4100), b: {} },
    });
    expect(deep.status).toBe(400);
    expect(await deep.json()).toMatchObject({
      error: 'VALIDATION_ERROR',
      message: expect.stringMatching(/^variants\.a: .*nests deeper than 32 levels/),
    });
    expect((await t.api('GET', '/flags/deep-json')).status).toBe(404);
    const ok = await t.api('POST', '/flags', {
      key: 'deep-json',
      type: 'json',
      variants: { a: nested(31), b: {} },
    });
    expect(ok.status).toBe(201);
    const sdk = await fetch(`${t.server.url}/sdk/flags`, {
      headers: { authorization: `Bearer ${t.readKey}` },
    });
    expect(sdk.status).toBe(200);
  });
});

async function ofrep(
  path: string,
  context: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${t.server.url}/ofrep/v1/evaluate/flags${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.fullKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ context }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('evaluation contexts, single and bulk alike (§11.2)', () => {
  const cases: Array<[string, () => Record<string, unknown>]> = [
    ['nested 40 deep', () => ({ targetingKey: 'u', deep: nested(40) })],
    ['50,000 attributes', () => Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, i]))],
    [
      'an array of 15 texts of 64 KiB',
      () => ({ targetingKey: 'u', tags: Array.from({ length: 15 }, () => 'a'.repeat(65_536)) }),
    ],
    ['an array of 1,000 items', () => ({ targetingKey: 'u', tags: Array.from({ length: 1000 }, () => 'a') })],
    [
      '40 KiB of texts each within the bounds',
      () => ({
        targetingKey: 'u',
        ...Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`t${i}`, 'a'.repeat(4000)])),
      }),
    ],
  ];
  for (const [name, make] of cases) {
    it(`a context with ${name} is refused 400 INVALID_CONTEXT, single and bulk`, async () => {
      const context = make();
      for (const path of ['/targeted', '']) {
        const answer = await ofrep(path, context);
        expect(answer.status, `${path || 'bulk'}: ${JSON.stringify(answer.body).slice(0, 200)}`).toBe(400);
        expect(answer.body.errorCode).toBe('INVALID_CONTEXT');
        expect(String(answer.body.errorDetails)).toMatch(/context is refused/);
      }
    });
  }

  it('a context within the bounds evaluates, single and bulk', async () => {
    const context = { targetingKey: 'u', tags: ['x', 'aaa0'], deep: nested(30) };
    expect(await ofrep('/targeted', context)).toMatchObject({ status: 200, body: { value: true } });
    expect((await ofrep('', context)).status).toBe(200);
  });
});

describe('bytes per flag, segment and environment (§3.4)', () => {
  it('a flag grown past 1 MiB by successive PATCHes is refused, naming the size', async () => {
    await t.api('POST', '/flags', { key: 'grown', type: 'boolean' });
    // Each body is under 1 MiB; together they would make the flag larger than a flag may be.
    const keys = (prefix: string) =>
      Array.from({ length: 10_000 }, (_, i) => `${prefix}-${i}-${'x'.repeat(40)}`);
    const targets = [{ variant: 'on', keys: keys('t') }];
    expect((await t.api('PATCH', '/flags/grown', { targets })).status).toBe(200);
    const values = (i: number) => Array.from({ length: 8_000 }, (_, j) => `${i}-${j}-${'y'.repeat(40)}`);
    const rules = [0, 1].map((i) => ({
      clauses: [{ attribute: 'email', op: 'in', values: values(i) }],
      serve: { variant: 'on' },
    }));
    const res = await t.api('PATCH', '/flags/grown', { rules });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: 'VALIDATION_ERROR',
      message: expect.stringMatching(
        /^flag "grown" would be [\d.]+ MiB of JSON, more than the 1\.0 MiB a flag may be/,
      ),
    });
  });
});

describe('a bulk evaluation has a budget (§11.3)', () => {
  it('past it the flags left answer GENERAL, and the request ends', async () => {
    const { evaluateAll, BULK_BUDGET_MS } = await import('../../../server/ofrep/evaluate.js');
    const keys = Array.from({ length: 5 }, (_, i) => `f${i}`);
    const flags = new Map(keys.map((key) => [key, { key, type: 'boolean', enabled: true, version: 1 }]));
    const env = { flags, segments: new Map() } as never;
    // The clock moves a budget per flag evaluated, as a costly evaluation would.
    const now = performance.now;
    let clock = 0;
    performance.now = () => clock;
    let left = 0;
    try {
      const counted: string[] = [];
      const answers = evaluateAll(
        env,
        { raw: {}, targetingKey: 'u', user: { key: 'u' } },
        (key) => {
          counted.push(key);
          clock += BULK_BUDGET_MS * 0.6;
        },
        (n) => {
          left = n;
        },
      );
      expect(answers.map((a) => a.key)).toEqual(keys);
      expect(answers.slice(0, 2).every((a) => a.value === true)).toBe(true);
      expect(answers.slice(2).map((a) => a.errorCode)).toEqual(['GENERAL', 'GENERAL', 'GENERAL']);
      expect(left).toBe(3);
      expect(counted).toEqual(['f0', 'f1']);
    } finally {
      performance.now = now;
    }
  });
});
