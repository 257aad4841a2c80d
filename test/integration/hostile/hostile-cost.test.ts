/**
 * Hostile suite, evaluation cost (`docs/protocol.md` §12.10): what a key holder saves
 * cannot make one evaluation expensive, in the SDK or on the server. A write that would push any
 * flag past the cost budget, or nest prerequisites deeper than 5 in either direction, is refused
 * `400 VALIDATION_ERROR` naming the path and the cost, and the environment keeps serving.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t?.close());

async function refused(res: Response, message: RegExp): Promise<void> {
  const body = (await res.json()) as { error: string; message: string };
  expect(res.status, body.message).toBe(400);
  expect(body.error).toBe('VALIDATION_ERROR');
  expect(body.message).toMatch(message);
}

const clause = (i: number) => ({ attribute: `a${i}`, op: 'startsWith', values: ['x', 'y', 'z'] });
const bigRules = (rules: number, clauses: number) =>
  Array.from({ length: rules }, (_, r) => ({
    clauses: Array.from({ length: clauses }, (_, c) => clause(r * clauses + c)),
  }));

async function ofrep(key: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${t.server.url}/ofrep/v1/evaluate/flags/${key}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.fullKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ context: { targetingKey: 'user-1' } }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('the cost budget (§12.10)', () => {
  it('a flag naming a huge segment 30,000 times is refused with its cost', async () => {
    // 100 rules of 100 clauses: no flag uses it yet, so it may be saved...
    expect((await t.api('POST', '/segments', { key: 'huge', rules: bigRules(100, 100) })).status).toBe(201);
    const inHuge = { op: 'inSegment', values: Array.from({ length: 10_000 }, () => 'huge') };
    await refused(
      await t.api('POST', '/flags', {
        key: 'uses-huge',
        type: 'boolean',
        rules: [{ clauses: [inHuge, inHuge, inHuge], serve: { variant: 'on' } }],
      }),
      /^rules: the flag would cost [\d,]+ units per evaluation, more than the budget of 10,000/,
    );
    // ...and a flag that names it once is refused too: the segment alone is over the budget.
    await refused(
      await t.api('POST', '/flags', {
        key: 'uses-huge',
        type: 'boolean',
        rules: [{ clauses: [{ op: 'inSegment', values: ['huge'] }], serve: { variant: 'on' } }],
      }),
      /would cost [\d,]+ units/,
    );
    expect((await t.api('GET', '/flags/uses-huge')).status).toBe(404);
  });

  it('a segment change that would push a flag using it over the budget is refused, naming the flag', async () => {
    expect((await t.api('POST', '/segments', { key: 'small', included: ['a'] })).status).toBe(201);
    const created = await t.api('POST', '/flags', {
      key: 'uses-small',
      type: 'boolean',
      rules: [{ clauses: [{ op: 'inSegment', values: ['small'] }], serve: { variant: 'on' } }],
    });
    expect(created.status).toBe(201);
    await refused(
      await t.api('PATCH', '/segments/small', { rules: bigRules(100, 100) }),
      /^rules: flag "uses-small" uses this and would cost [\d,]+ units per evaluation, more than the budget/,
    );
    expect(await (await t.api('GET', '/segments/small')).json()).toMatchObject({ rules: [] });
    // A change within the budget still saves.
    expect((await t.api('PATCH', '/segments/small', { rules: bigRules(2, 10) })).status).toBe(200);
  });

  it('a pattern whose program is near the matcher limit is refused by its cost', async () => {
    await refused(
      await t.api('POST', '/flags', {
        key: 'slow-pattern',
        type: 'boolean',
        rules: [
          {
            clauses: [{ attribute: 'name', op: 'matches', values: ['[a-z]{1,1000}0'] }],
            serve: { variant: 'on' },
          },
        ],
      }),
      /^rules: the flag would cost [\d,]+ units/,
    );
    const ordinary = await t.api('POST', '/flags', {
      key: 'ordinary-pattern',
      type: 'boolean',
      rules: [
        {
          clauses: [{ attribute: 'email', op: 'matches', values: ['^[a-z0-9._%+-]+@example\\.com$'] }],
          serve: { variant: 'on' },
        },
      ],
    });
    expect(ordinary.status).toBe(201);
  });

  it('a prerequisite graph counts each flag once: ten flags that share ten prerequisites are fine', async () => {
    for (let i = 0; i < 10; i++)
      expect((await t.api('POST', '/flags', { key: `shared-${i}`, type: 'boolean', rules: [] })).status).toBe(
        201,
      );
    const prerequisites = Array.from({ length: 10 }, (_, i) => ({ flag: `shared-${i}`, variants: ['on'] }));
    for (let i = 0; i < 10; i++)
      expect(
        (await t.api('POST', '/flags', { key: `sharer-${i}`, type: 'boolean', prerequisites })).status,
      ).toBe(201);
  });
});

describe('prerequisite depth in both directions (§12.10)', () => {
  it('levels linked top-down are refused once the flags above would nest deeper than 5', async () => {
    const key = (level: number, i: number) => `lvl${level}-${i}`;
    for (let level = 0; level < 8; level++)
      for (let i = 0; i < 10; i++)
        expect((await t.api('POST', '/flags', { key: key(level, i), type: 'boolean' })).status).toBe(201);
    const below = (level: number) =>
      Array.from({ length: 10 }, (_, i) => ({ flag: key(level, i), variants: ['on'] }));
    // Top-down: level 7 requires level 6 first, then 6 requires 5, ... Each write is checked
    // against the flags above it, not only below.
    let refusedAt: number | undefined;
    for (let level = 7; level > 0 && refusedAt === undefined; level--) {
      for (let i = 0; i < 10; i++) {
        const res = await t.api('PATCH', `/flags/${key(level, i)}`, { prerequisites: below(level - 1) });
        if (res.status === 200) continue;
        await refused(
          res,
          /^prerequisites: flag "lvl7-\d" depends on this change and its prerequisites would nest 6 deep, more than 5$/,
        );
        refusedAt = level;
        break;
      }
    }
    expect(refusedAt).toBe(2);
    // Every flag still evaluates.
    expect((await ofrep('lvl7-0')).status).toBe(200);
  });

  it('a prerequisite added under an existing 5-deep chain is refused, and the chain keeps evaluating', async () => {
    for (let i = 1; i <= 7; i++) await t.api('POST', '/flags', { key: `chain-${i}`, type: 'boolean' });
    for (let i = 1; i <= 5; i++) {
      const res = await t.api('PATCH', `/flags/chain-${i}`, {
        prerequisites: [{ flag: `chain-${i + 1}`, variants: ['off'] }],
      });
      expect(res.status).toBe(200);
    }
    await refused(
      await t.api('PATCH', '/flags/chain-6', { prerequisites: [{ flag: 'chain-7', variants: ['off'] }] }),
      /flag "chain-1" depends on this change and its prerequisites would nest 6 deep, more than 5/,
    );
    const top = await ofrep('chain-1');
    expect(top.status).toBe(200);
    expect(top.body.reason).not.toBe('ERROR');
  });

  it('a cycle is still refused', async () => {
    await t.api('POST', '/flags', { key: 'cyc-a', type: 'boolean' });
    await t.api('POST', '/flags', {
      key: 'cyc-b',
      type: 'boolean',
      prerequisites: [{ flag: 'cyc-a', variants: ['on'] }],
    });
    await refused(
      await t.api('PATCH', '/flags/cyc-a', { prerequisites: [{ flag: 'cyc-b', variants: ['on'] }] }),
      /cycle/,
    );
  });
});

describe('one decision per segment and prerequisite in an evaluation (§12.10)', () => {
  it('a segment named 30,000 times and a prerequisite shared by ten are each decided once', async () => {
    const { compileFlag, compileSegment } = await import('../../../src/core/targeting/compile.js');
    const { evaluateVariant } = await import('../../../src/core/targeting/evaluate.js');
    let reads = 0;
    const user = {
      key: 'u',
      get plan() {
        reads++;
        return 'pro';
      },
    };
    const segment = compileSegment({
      key: 's',
      included: [],
      excluded: [],
      rules: [{ clauses: [{ attribute: 'plan', op: 'in', values: ['free'] }] }],
    });
    const names = Array.from({ length: 10_000 }, () => 's');
    const flag = compileFlag({
      key: 'f',
      type: 'boolean',
      enabled: true,
      rules: [
        {
          id: 'r',
          clauses: [1, 2, 3].map(() => ({ op: 'inSegment' as const, values: names })),
          serve: { variant: 'on' },
        },
      ],
    });
    const context = { flag: () => undefined, segment: () => segment };
    evaluateVariant(flag, user, context);
    expect(reads).toBe(1);
    evaluateVariant(flag, user, context);
    expect(reads).toBe(2);

    // Ten prerequisites that each require the same flag, which reads `plan`.
    reads = 0;
    const base = compileFlag({
      key: 'base',
      type: 'boolean',
      enabled: true,
      rules: [
        { id: 'b', clauses: [{ attribute: 'plan', op: 'in', values: ['pro'] }], serve: { variant: 'on' } },
      ],
    });
    const middle = Array.from({ length: 10 }, (_, i) =>
      compileFlag({
        key: `m${i}`,
        type: 'boolean',
        enabled: true,
        prerequisites: [{ flag: 'base', variants: ['on'] }],
      }),
    );
    const top = compileFlag({
      key: 'top',
      type: 'boolean',
      enabled: true,
      prerequisites: middle.map((m) => ({ flag: m.key, variants: ['on'] })),
    });
    const flags = new Map([base, ...middle].map((f) => [f.key, f]));
    const graph = { flag: (k: string) => flags.get(k), segment: () => undefined };
    expect(top.names[evaluateVariant(top, user, graph)]).toBe('on');
    expect(reads).toBe(1);
  });
});

describe('an environment cost budget (§12.10)', () => {
  it('flags that together would cost more than one bulk evaluation may are refused, naming the total', async () => {
    const own = await startTestServer({ memory: true, config: undefined });
    try {
      // Each flag one near-budget pattern (about 9,700 units) and a few hundred bytes: the
      // environment's cost budget (5,000,000) binds long before its byte limit.
      const body = (i: number) => ({
        key: `pattern-${i}`,
        type: 'boolean',
        rules: [
          {
            clauses: [{ attribute: 'name', op: 'matches', values: ['[a-z]{1,28}x'] }],
            serve: { variant: 'on' },
          },
        ],
      });
      let refusedAt = -1;
      for (let i = 0; i < 600 && refusedAt < 0; i++) {
        const res = await own.api('POST', '/flags', body(i));
        if (res.status === 201) continue;
        await refused(
          res,
          /^the environment's flags would cost [\d,]+ units together \(one bulk evaluation\), more than the budget of 5,000,000/,
        );
        refusedAt = i;
      }
      expect(refusedAt).toBeGreaterThan(500);
      expect(refusedAt).toBeLessThan(600);
      // The environment keeps serving, in bulk too.
      const bulk = await fetch(`${own.server.url}/ofrep/v1/evaluate/flags`, {
        method: 'POST',
        headers: { authorization: `Bearer ${own.fullKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ context: { targetingKey: 'u', name: 'bob' } }),
      });
      expect(bulk.status).toBe(200);
      expect(((await bulk.json()) as { flags: unknown[] }).flags).toHaveLength(refusedAt);
    } finally {
      await own.close();
    }
  });
});
