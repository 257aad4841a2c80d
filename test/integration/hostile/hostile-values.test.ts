/**
 * Hostile values (on a real server (`docs/protocol.md` §12.2,
 * §13): attributes are a user's own properties only (a rule on `constructor`, `__proto__`,
 * `toString`... matches no one who did not set it, in the SDK client, OFREP and the dashboard's
 * "who gets what", and still matches one who did); impossible calendar dates and SemVer numbers
 * past 2^53 - 1 are refused when saved; a user's impossible date is no time, a user's version
 * with such a number compares exactly; usage counts added up on every read stop at 2^53 - 1.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type FlagwireClient, type User } from '../../../src/index.js';
import { expectError, type Json } from '../../helpers/lifecycle.js';
import { KEYS, startTestServer, type TestServer } from '../../helpers/server.js';
import { postReport, reportBody } from '../../helpers/usage.js';

let t: TestServer;
const clients: FlagwireClient[] = [];

/** Names every object inherits, top-level and through JSON pointers. */
const INHERITED = [
  'constructor',
  '__proto__',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '/a/constructor',
  '/a/toString',
  '/address/__proto__',
  '/address/__proto__/constructor',
];

/** A flag per inherited name, `exists-<i>`: `on` to whoever has the attribute, else `off`. */
const existsFlag = (i: number) => `exists-${i}`;

/** The JSON text of a user `u` whose own property at `attribute` is 1 (`__proto__` included). */
function ownText(attribute: string): string {
  const segments = attribute.startsWith('/') ? attribute.slice(1).split('/') : [attribute];
  const [first, ...rest] = segments;
  const inner = rest.reduceRight((value, name) => `{${JSON.stringify(name)}:${value}}`, '1');
  return `{"key":"u",${JSON.stringify(first)}:${inner}}`;
}
/** A user without any of them, but with the objects the pointers go through. */
const WITHOUT = '{"key":"u","a":{},"address":{}}';

beforeAll(async () => {
  t = await startTestServer();
  for (const [i, attribute] of INHERITED.entries()) {
    const made = await t.api('POST', '/flags', {
      key: existsFlag(i),
      type: 'boolean',
      fallthrough: { variant: 'off' },
      rules: [{ clauses: [{ attribute, op: 'exists' }], serve: { variant: 'on' } }],
    });
    expect(made.status, await made.text()).toBe(201);
    expect((await t.api('PATCH', `/flags/${existsFlag(i)}`, { enabled: true })).status).toBe(200);
  }
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
afterAll(() => t?.close());

async function client(): Promise<FlagwireClient> {
  const c = createClient({ baseUrl: t.base, apiKey: t.readKey, logger: false });
  clients.push(c);
  await c.ready({ timeoutMs: 10_000 });
  return c;
}

/** OFREP's single evaluation of `flag` for the context whose JSON text is `context`. */
async function ofrep(flag: string, context: string): Promise<Json> {
  const res = await fetch(`${t.server.url}/ofrep/v1/evaluate/flags/${flag}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEYS.acmeProdRead}`, 'content-type': 'application/json' },
    body: `{"context":${context.replace('"key":', '"targetingKey":')}}`,
  });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return JSON.parse(text);
}

/** The dashboard's "who gets what" for the user whose JSON text is `user` (the saved flag). */
async function dashboard(flag: string, user: string): Promise<Json> {
  const res = await fetch(`${t.server.url}/admin/api/evaluate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.server.adminToken}`, 'content-type': 'application/json' },
    body: `{"environment":"acme/production","flag":${JSON.stringify(flag)},"user":${user}}`,
  });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return JSON.parse(text).saved;
}

describe('attributes are own properties only', () => {
  it('the JSON texts give own properties (the premise of the cases below)', () => {
    for (const attribute of INHERITED) {
      let value: unknown = JSON.parse(ownText(attribute));
      for (const name of attribute.startsWith('/') ? attribute.slice(1).split('/') : [attribute]) {
        expect(Object.hasOwn(value as object, name)).toBe(true);
        value = (value as Record<string, unknown>)[name];
      }
      expect(value).toBe(1);
    }
  });

  it('in the SDK client: an inherited name is not an attribute; an own one is', async () => {
    const c = await client();
    const without = JSON.parse(WITHOUT) as User;
    for (const [i, attribute] of INHERITED.entries()) {
      expect(c.getDetail(existsFlag(i), without, true), attribute).toMatchObject({
        value: false,
        reason: 'FALLTHROUGH',
      });
      expect(
        c.getDetail(existsFlag(i), JSON.parse(ownText(attribute)) as User, false),
        attribute,
      ).toMatchObject({ value: true, reason: 'RULE_MATCH' });
    }
    // A string user is a key only.
    expect(c.isEnabled(existsFlag(0), 'u', true)).toBe(false);
  });

  it('in OFREP single evaluation', async () => {
    for (const [i, attribute] of INHERITED.entries()) {
      expect(await ofrep(existsFlag(i), WITHOUT), attribute).toMatchObject({
        value: false,
        reason: 'TARGETING_MATCH',
        metadata: { fallthrough: true },
      });
      expect(await ofrep(existsFlag(i), ownText(attribute)), attribute).toMatchObject({
        value: true,
        reason: 'TARGETING_MATCH',
      });
    }
  });

  it("in the dashboard's who gets what", async () => {
    for (const [i, attribute] of INHERITED.entries()) {
      expect(await dashboard(existsFlag(i), WITHOUT), attribute).toMatchObject({
        value: false,
        reason: 'FALLTHROUGH',
      });
      expect(await dashboard(existsFlag(i), ownText(attribute)), attribute).toMatchObject({
        value: true,
        reason: 'RULE_MATCH',
      });
    }
  });
});

/** A flag whose one rule is `clause`; answers the response. */
const saveRule = (key: string, clause: Json) =>
  t.api('POST', '/flags', {
    key,
    type: 'boolean',
    fallthrough: { variant: 'off' },
    rules: [{ clauses: [clause], serve: { variant: 'on' } }],
  });

let saved = 0;
/** Saving `clause` is refused, naming its first value's path. */
async function refused(clause: Json): Promise<void> {
  const res = await saveRule(`refused-${saved++}`, clause);
  const message = await expectError(res, 400, 'VALIDATION_ERROR');
  expect(message, JSON.stringify(clause)).toMatch(/^rules\[0\]\.clauses\[0\]\.values\[0\]: /);
}
/** Saving `clause` is accepted. */
async function accepted(clause: Json): Promise<void> {
  const res = await saveRule(`accepted-${saved++}`, clause);
  expect(res.status, `${JSON.stringify(clause)}: ${await res.text()}`).toBe(201);
}

describe('impossible dates', () => {
  const IMPOSSIBLE = [
    '2026-02-30T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2025-02-29T00:00:00Z',
    '1900-02-29T00:00:00Z',
    '2026-01-01T24:00:00Z',
    '2026-01-01T23:60:00Z',
    '2026-01-01T23:59:60Z',
    '2026-01-01T00:00:00+24:00',
    '2026-01-01T00:00:00+05:60',
    '2026-13-01T00:00:00Z',
    '2026-00-01T00:00:00Z',
    '2026-01-00T00:00:00Z',
  ];

  it.each(IMPOSSIBLE)('%s is refused when saved, naming its path (flags and segments)', async (date) => {
    await refused({ attribute: 'signup', op: 'after', values: [date] });
    await refused({ attribute: 'signup', op: 'before', values: [date, '2026-01-01T00:00:00Z'] });
    const segment = await t.api('POST', '/segments', {
      key: `dates-${saved++}`,
      included: [],
      excluded: [],
      rules: [{ clauses: [{ attribute: 'signup', op: 'after', values: ['2026-01-01T00:00:00Z', date] }] }],
    });
    const message = await expectError(segment, 400, 'VALIDATION_ERROR');
    expect(message).toMatch(/^rules\[0\]\.clauses\[0\]\.values\[1\]: /);
  });

  it('possible dates, leap days and offsets included, are still accepted', async () => {
    for (const date of [
      '2024-02-29T00:00:00Z',
      '2000-02-29T23:59:59.999+00:00',
      '2026-04-30 12:00:00-23:59',
      '0001-01-01t00:00:00z',
      '9999-12-31T23:59:59.123456789Z',
    ])
      await accepted({ attribute: 'signup', op: 'after', values: [date] });
  });

  it("a user's impossible date is no time: the clause does not hold", async () => {
    const made = await saveRule('signed-up', {
      attribute: 'signup',
      op: 'after',
      values: ['2026-01-01T00:00:00Z'],
    });
    expect(made.status).toBe(201);
    expect((await t.api('PATCH', '/flags/signed-up', { enabled: true })).status).toBe(200);
    const c = await client();
    const served = (signup: unknown) => c.isEnabled('signed-up', { key: 'u', signup }, true);
    expect(served('2026-02-28T00:00:00Z')).toBe(true);
    expect(served('2024-02-29T00:00:00Z')).toBe(false);
    for (const date of ['2026-02-30T00:00:00Z', '2026-02-29T00:00:00Z', '2026-03-01T24:00:00Z'])
      expect(served(date), date).toBe(false);
    const context = '{"targetingKey":"u","signup":"2026-02-30T00:00:00Z"}';
    const res = await fetch(`${t.server.url}/ofrep/v1/evaluate/flags/signed-up`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEYS.acmeProdRead}`, 'content-type': 'application/json' },
      body: `{"context":${context}}`,
    });
    expect(await res.json()).toMatchObject({
      value: false,
      reason: 'TARGETING_MATCH',
      metadata: { fallthrough: true },
    });
  });
});

describe('SemVer numbers past 2^53 - 1', () => {
  const UNSAFE = [
    '9007199254740992.0.0',
    '1.9007199254740992.0',
    '1.0.9007199254740992',
    '1.0.0-9007199254740992',
    '1.0.0-rc.18446744073709551616',
    '99999999999999999999999',
  ];

  it.each(UNSAFE)('%s is refused when saved, naming its path', async (version) => {
    await refused({ attribute: 'app', op: 'semVerGreaterThan', values: [version] });
    await refused({ attribute: 'app', op: 'semVerEqual', values: [version, '1.0.0'] });
  });

  it('the largest safe numbers, and long identifiers that are not numbers, are accepted', async () => {
    for (const version of [
      '9007199254740991.9007199254740991.9007199254740991',
      '1.0.0-9007199254740991',
      '1.0.0-rc.x9007199254740992',
      '1.0.0+9007199254740992',
    ])
      await accepted({ attribute: 'app', op: 'semVerLessThanOrEqual', values: [version] });
  });

  it("a user's version with such a number compares exactly with every operand that can be saved", async () => {
    const max = '9007199254740991';
    const made = await t.api('POST', '/flags', {
      key: 'app-gate',
      type: 'string',
      variants: { past: 'past', at: 'at', before: 'before' },
      fallthrough: { variant: 'before' },
      rules: [
        {
          clauses: [{ attribute: 'app', op: 'semVerEqual', values: [`${max}.0.0-rc.${max}`] }],
          serve: { variant: 'at' },
        },
        {
          clauses: [{ attribute: 'app', op: 'semVerGreaterThan', values: [`${max}.0.0-${max}`] }],
          serve: { variant: 'past' },
        },
      ],
    });
    expect(made.status, await made.text()).toBe(201);
    expect((await t.api('PATCH', '/flags/app-gate', { enabled: true })).status).toBe(200);
    const c = await client();
    const served = (app: string) => c.getString('app-gate', { key: 'u', app }, 'default');
    // 2^53 and past it (rounded to 2^53 or more) against the largest operands: never equal.
    expect(served(`${max}.0.0-${max}`)).toBe('before');
    expect(served(`${max}.0.0-9007199254740992`)).toBe('past');
    expect(served(`${max}.0.0-9007199254740993`)).toBe('past');
    expect(served(`${max}.0.0-rc.9007199254740992`)).toBe('past');
    expect(served(`${max}.0.0-rc.${max}`)).toBe('at');
    expect(served('9007199254740993.0.0')).toBe('past');
    expect(served(`${'9'.repeat(400)}.0.0`)).toBe('past');
    expect(served(`${max}.0.0-rc.${max}+9007199254740993`)).toBe('at');
  });
});

describe('usage sums stop at 2^53 - 1 on every read', () => {
  const MAX = Number.MAX_SAFE_INTEGER;
  it('per hour, per day, per series, per app and in total', async () => {
    // Two minutes before an hour, then two after: the clock moves (within its 5 minutes of skew).
    let now = Date.UTC(2030, 0, 1, 10, 58);
    const u = await startTestServer({ usage: { now: () => now } });
    try {
      expect((await u.api('POST', '/flags', { key: 'big', type: 'boolean' })).status).toBe(201);
      // A second version, so that rows of an older one are counted too.
      expect((await u.api('PATCH', '/flags/big', { description: 'v2' })).status).toBe(200);
      const { flags } = (await (await u.api('GET', '/sdk/flags?capabilities=targeting')).json()) as {
        flags: Record<string, { version: number }>;
      };
      const version = flags.big!.version;
      const row = (variant: string, reason: string) => ({ key: 'big', version, variant, reason, count: MAX });
      const send = async (fields: Parameters<typeof reportBody>[0]) =>
        expect((await postReport(u.base, KEYS.acmeProdRead, reportBody(fields))).status).toBe(202);
      // Hour 10: on and off from one app, on from another (and from an older version);
      // unknown keys, as many times over.
      await send({ counts: [row('on', 'ON'), row('off', 'OFF')], unknown: [{ key: 'gone', count: MAX }] });
      await send({
        app: { name: 'other' },
        counts: [row('on', 'ON'), { ...row('on', 'ON'), version: version - 1 }],
        unknown: [{ key: 'gone', count: MAX }],
      });
      now += 4 * 60_000;
      // Hour 11: on again.
      await send({ counts: [row('on', 'ON')] });

      const summaries = (await (await u.api('GET', '/usage/flags')).json()) as Array<{
        key: string;
        last24h: number[];
      }>;
      const last24h = summaries.find((s) => s.key === 'big')!.last24h;
      expect.soft(last24h.slice(-2)).toEqual([MAX, MAX]);
      for (const range of ['24h', '7d', '30d', '90d']) {
        const res = await u.api('GET', `/usage/flags/big?range=${range}`);
        const series = (await res.json()) as {
          total: number;
          series: Array<{ variant: string; points: number[] }>;
          apps: Array<{ app: string | null; count: number }>;
        };
        expect.soft(series.total, range).toBe(MAX);
        const points = (variant: string) =>
          series.series.find((line) => line.variant === variant)!.points.filter((n) => n > 0);
        expect.soft(points('on'), range).toEqual(range === '30d' || range === '90d' ? [MAX] : [MAX, MAX]);
        expect.soft(points('off'), range).toEqual([MAX]);
        expect.soft(series.apps.map((a) => [a.app, a.count]).sort(), range).toEqual([
          ['checkout', MAX],
          ['other', MAX],
        ]);
      }
      const unknown = (await (await u.api('GET', '/usage/unknown')).json()) as Array<{
        key: string;
        count: number;
      }>;
      expect.soft(unknown).toEqual([expect.objectContaining({ key: 'gone', count: MAX })]);
    } finally {
      await u.close();
    }
  });
});
