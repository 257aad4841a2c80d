/**
 * Property tests of the management body validation (`src/core/validation.ts`) and of the
 * reference server's flag endpoints that use it.
 *
 * - Arbitrary values (JSON values, anything JavaScript, deep nesting, huge strings,
 *   `__proto__`/`constructor` keys, near-valid bodies with one field broken) never make a
 *   validator throw; the answer is ok, or a failure whose message names its field in double
 *   quotes (a body that is not an object at all is reported as "request body ...").
 * - Valid bodies are accepted with the same values (`enabled` on create is accepted and
 *   ignored, `docs/protocol.md` §3).
 * - Keys of 129+ characters, empty keys, and keys with a disallowed character are rejected
 *   with a message naming "key".
 * - End to end, against a real in-memory server: random bodies POSTed to /flags and PATCHed to
 *   /flags/seeded get 201/200 or a 4xx JSON `{error, message}`, never a 5xx; the server agrees
 *   with the validator; the set of flags changes only by accepted creates.
 *
 * Reproduce a failure: PROPERTY_SEED=<seed printed by fast-check> npx vitest run test/integration/server/property-validation.test.ts
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../../src/core/limits.js';
import type { FlagType } from '../../../src/core/types.js';
import {
  flagKeyProblem,
  type Validation,
  validateCreateFlag,
  validateCreateWebhook,
  validateUpdateFlag,
  validateUpdateWebhook,
} from '../../../src/core/validation.js';
import { PROPERTY_SEED, params } from '../../helpers/property-seed.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

// ---------------------------------------------------------------- generators

const ALNUM = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'];
const KEY_CHARS = [...ALNUM, '.', '_', '-'];
const FIELDS = [
  'key',
  'type',
  'enabled',
  'percentage',
  'description',
  'url',
  'events',
  'active',
  'id',
  'secret',
  'createdAt',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
];

/** A valid flag key: `^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`. */
const validKey = fc
  .tuple(fc.constantFrom(...ALNUM), fc.string({ unit: fc.constantFrom(...KEY_CHARS), maxLength: 127 }))
  .map(([first, rest]) => first + rest);

/** A string of at most 1,000 UTF-16 code units, any code points (lone surrogates included). */
const validDescription = fc
  .oneof(
    fc.string({ unit: 'binary', maxLength: 1000 }),
    fc.string({ maxLength: 40 }),
    fc.string({ unit: fc.constantFrom('a', 'é', '😀'), minLength: 990, maxLength: 1000 }),
  )
  .map((s) => s.slice(0, 1000));

const flagType = fc.constantFrom<FlagType>('boolean', 'rollout');
const percentage = fc.integer({ min: 0, max: 100 });
const EVENT_KINDS = ['flag.enabled', 'flag.disabled', 'flag.updated'] as const;

interface CreateBody {
  key: string;
  type: FlagType;
  enabled?: boolean;
  percentage?: number;
  description?: string | null;
}

const validCreate: fc.Arbitrary<CreateBody> = flagType.chain((type) =>
  fc.record(
    {
      key: validKey,
      type: fc.constant(type),
      enabled: fc.boolean(),
      description: fc.option(validDescription, { nil: null }),
      ...(type === 'rollout' ? { percentage } : {}),
    },
    { requiredKeys: ['key', 'type'], noNullPrototype: true },
  ),
);

const validUpdate = (type: FlagType) =>
  fc.record(
    {
      enabled: fc.boolean(),
      description: fc.option(validDescription, { nil: null }),
      ...(type === 'rollout' ? { percentage } : {}),
    },
    { requiredKeys: [], noNullPrototype: true },
  );

const validUrl = fc
  .tuple(
    fc.constantFrom('http', 'https', 'HTTPS'),
    fc.constantFrom('example.com', '127.0.0.1', 'localhost:8080', '[::1]:3000', 'hooks.example.org'),
    fc.string({ unit: fc.constantFrom(...KEY_CHARS, '/', '?', '=', '&', '%20'), maxLength: 200 }),
  )
  .map(([scheme, host, path]) => `${scheme}://${host}/${path}`);

const validEvents = fc.shuffledSubarray([...EVENT_KINDS], { minLength: 1 });
const validCreateWebhook = fc.record({ url: validUrl, events: validEvents }, { noNullPrototype: true });
const validUpdateWebhook = fc.record(
  { active: fc.boolean(), events: validEvents, url: validUrl },
  { requiredKeys: [], noNullPrototype: true },
);

/** Strings of up to 2 million code units, built cheaply. */
const hugeString = fc
  .tuple(fc.string({ unit: 'binary', minLength: 1, maxLength: 3 }), fc.integer({ min: 1000, max: 2_000_000 }))
  .map(([unit, n]) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n));

/** Nested arrays/objects up to 100,000 levels deep (built without recursion). */
const deepValue = (maxDepth: number) =>
  fc
    .tuple(fc.integer({ min: 100, max: maxDepth }), fc.boolean(), fc.constantFrom(...FIELDS))
    .map(([depth, arrays, field]) => {
      let v: unknown = 'x';
      for (let i = 0; i < depth; i++) v = arrays ? [v] : { [field]: v };
      return v;
    });

/** An object with an own `__proto__` property (what `JSON.parse` makes of `{"__proto__": ...}`). */
const protoObject = fc
  .tuple(fc.oneof(validCreate, validCreateWebhook, fc.jsonValue({ maxDepth: 2 })), fc.option(validCreate))
  .map(([inner, outer]) => {
    const o: Record<string, unknown> = { ...(outer ?? {}) };
    Object.defineProperty(o, '__proto__', {
      value: inner,
      enumerable: true,
      writable: true,
      configurable: true,
    });
    return o;
  });

/** Everything JavaScript can throw at a validator. */
const anything = fc.anything({
  maxDepth: 4,
  key: fc.oneof(fc.string(), fc.constantFrom(...FIELDS)),
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withObjectString: true,
  withSparseArray: true,
  withTypedArray: true,
  withUnicodeString: true,
});

const wildValue = fc.oneof(
  { weight: 4, arbitrary: anything },
  { weight: 2, arbitrary: fc.jsonValue() },
  { weight: 1, arbitrary: hugeString },
  { weight: 1, arbitrary: deepValue(100_000) },
  { weight: 1, arbitrary: protoObject },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      -0,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      1e21,
      100.5,
      101,
      -1,
      2 ** 53,
      '',
      'boolean',
      'rollout',
      'flag.updated',
    ),
  },
);

/** A valid body with one field replaced by a wild value, removed, or joined by an extra field. */
function nearValid<T extends object>(valid: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc
    .tuple(
      valid,
      fc.constantFrom(...FIELDS),
      wildValue,
      fc.constantFrom('replace', 'remove', 'add-huge-name'),
    )
    .map(([body, field, value, how]) => {
      const o: Record<string, unknown> = { ...(body as Record<string, unknown>) };
      if (how === 'remove') delete o[field];
      else if (how === 'add-huge-name') o[`${field}${'x'.repeat(10_000)}`] = value;
      else Object.defineProperty(o, field, { value, enumerable: true, writable: true, configurable: true });
      return o;
    });
}

const wildBody = fc.oneof(
  { weight: 3, arbitrary: wildValue },
  { weight: 2, arbitrary: nearValid(validCreate) },
  { weight: 1, arbitrary: nearValid(validUpdate('rollout')) },
  { weight: 1, arbitrary: nearValid(validCreateWebhook) },
  { weight: 1, arbitrary: nearValid(validUpdateWebhook) },
);

// ---------------------------------------------------------------- checks

/**
 * The field as messages show it: quoted as JSON, and a name over 100 characters cut there
 * (so a client's 1 MiB field name is not echoed back whole).
 */
function shown(field: string): string {
  return field.length > 100 ? `${JSON.stringify(field.slice(0, 100))}…` : JSON.stringify(field);
}

/** Ok, or a failure whose message names its field in double quotes, at most 100 characters of it. */
function expectWellFormed<T>(result: Validation<T>): void {
  if (result.ok) return;
  expect(typeof result.field).toBe('string');
  expect(typeof result.message).toBe('string');
  if (result.field === 'body') expect(result.message).toMatch(/^request body must be a JSON object, got /);
  else expect(result.message).toContain(shown(result.field));
  expect(result.message.length).toBeLessThan(400);
}

function all(body: unknown): Array<Validation<unknown>> {
  return [
    validateCreateFlag(body),
    validateUpdateFlag(body, 'boolean'),
    validateUpdateFlag(body, 'rollout'),
    validateCreateWebhook(body),
    validateUpdateWebhook(body),
  ];
}

/** What `validateCreateFlag` must return for a valid body: the same values, `enabled` dropped. */
function expectedCreate(body: CreateBody): CreateBody {
  const { enabled: _ignored, ...rest } = body;
  return rest;
}

// ---------------------------------------------------------------- pure properties

describe(`validation (seed ${PROPERTY_SEED})`, () => {
  it('never throws on arbitrary input; answers ok or a message naming the field in double quotes', () => {
    fc.assert(
      fc.property(wildBody, (body) => {
        for (const result of all(body)) expectWellFormed(result);
        const problem = flagKeyProblem(body);
        if (problem !== undefined) expect(problem).toContain('"key"');
        if (body !== null && typeof body === 'object' && !Array.isArray(body) && 'key' in body) {
          const keyProblem = flagKeyProblem((body as { key: unknown }).key);
          if (keyProblem !== undefined) expect(keyProblem).toContain('"key"');
        }
      }),
      params(1500),
    );
  });

  it('accepts valid create-flag bodies with the same values', () => {
    fc.assert(
      fc.property(validCreate, (body) => {
        expect(flagKeyProblem(body.key)).toBeUndefined();
        expect(validateCreateFlag(body)).toStrictEqual({ ok: true, value: expectedCreate(body) });
        // As it arrives over HTTP.
        const wire = JSON.parse(JSON.stringify(body)) as CreateBody;
        expect(validateCreateFlag(wire)).toStrictEqual({ ok: true, value: expectedCreate(wire) });
      }),
      params(800),
    );
  });

  it('accepts valid update-flag bodies with the same values', () => {
    fc.assert(
      fc.property(
        flagType.chain((type) => fc.tuple(fc.constant(type), validUpdate(type))),
        ([type, body]) => {
          expect(validateUpdateFlag(body, type)).toStrictEqual({ ok: true, value: body });
          if (type === 'boolean')
            expect(validateUpdateFlag(body, 'rollout')).toStrictEqual({ ok: true, value: body });
        },
      ),
      params(500),
    );
  });

  it('accepts valid webhook bodies with the same values', () => {
    fc.assert(
      fc.property(validCreateWebhook, validUpdateWebhook, (create, update) => {
        expect(validateCreateWebhook(create)).toStrictEqual({ ok: true, value: create });
        expect(validateUpdateWebhook(update)).toStrictEqual({ ok: true, value: update });
      }),
      params(500),
    );
  });

  it('rejects keys that are too long, empty, or hold a disallowed character, naming "key"', () => {
    const tooLong = fc
      .tuple(validKey, fc.string({ unit: fc.constantFrom(...KEY_CHARS), minLength: 129, maxLength: 400 }))
      .map(([start, rest]) => (start + rest).slice(0, Math.max(129, start.length)));
    const badChar = fc
      .string({ unit: 'binary', minLength: 1, maxLength: 1 })
      .filter((c) => !KEY_CHARS.includes(c));
    const withBadChar = fc
      .tuple(validKey, badChar, fc.nat())
      .map(([key, c, at]) => {
        const i = at % (key.length + 1);
        return (key.slice(0, i) + c + key.slice(i)).slice(0, 128);
      })
      .filter((k) => !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(k));
    const badStart = fc
      .tuple(
        fc.constantFrom('.', '_', '-'),
        fc.string({ unit: fc.constantFrom(...KEY_CHARS), maxLength: 127 }),
      )
      .map(([c, rest]) => c + rest);
    const trailingNewline = validKey.map((k) => `${k.slice(0, 127)}\n`);
    fc.assert(
      fc.property(
        fc.oneof(tooLong, withBadChar, badStart, trailingNewline, fc.constant('')),
        flagType,
        (key, type) => {
          const problem = flagKeyProblem(key);
          expect(problem).toBeDefined();
          expect(problem).toContain('"key"');
          const result = validateCreateFlag({ key, type });
          expect(result.ok).toBe(false);
          if (!result.ok) {
            expect(result.field).toBe('key');
            expect(result.message).toContain('"key"');
          }
        },
      ),
      params(800),
    );
  });
});

// ---------------------------------------------------------------- end to end

describe(`flag endpoints of a real server (seed ${PROPERTY_SEED})`, () => {
  let t: TestServer;

  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => {
    await t?.close();
  });

  async function flagKeys(): Promise<string[]> {
    const res = await t.api('GET', '/flags');
    expect(res.status).toBe(200);
    const flags = (await res.json()) as Array<{ key: string }>;
    return flags.map((f) => f.key).sort();
  }

  /** A 4xx must be JSON `{error, message}`, exactly two strings. */
  async function expectClientError(res: Response): Promise<{ error: string; message: string }> {
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['error', 'message']);
    expect(typeof body.error).toBe('string');
    expect(typeof body.message).toBe('string');
    return body as { error: string; message: string };
  }

  /** Request bodies as text: JSON of the bodies above (kept under 1 MiB), raw `__proto__` JSON, or not JSON. */
  const httpBody: fc.Arbitrary<string> = fc.oneof(
    { weight: 3, arbitrary: validCreate.map((b) => JSON.stringify(b)) },
    // A valid body whose key is taken: 409.
    { weight: 1, arbitrary: validCreate.map((b) => JSON.stringify({ ...b, key: 'seeded' })) },
    { weight: 2, arbitrary: validUpdate('rollout').map((b) => JSON.stringify(b)) },
    {
      weight: 4,
      arbitrary: fc
        .oneof(
          nearValid(validCreate),
          nearValid(validUpdate('rollout')),
          fc.jsonValue(),
          deepValue(3000),
          fc.tuple(fc.constantFrom(...FIELDS), hugeString).map(([f, s]) => ({ [f]: s.slice(0, 200_000) })),
        )
        .map((b) => {
          try {
            return JSON.stringify(b) ?? 'null';
          } catch {
            return '"unserializable"';
          }
        })
        .filter((s) => s.length < 900_000),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(validCreate, fc.constantFrom('__proto__', 'constructor', 'prototype'), validCreate)
        .map(([outer, name, inner]) => {
          const rest = JSON.stringify(outer).slice(1, -1);
          return `{${JSON.stringify(name)}:${JSON.stringify(inner)}${rest ? `,${rest}` : ''}}`;
        }),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 50 }) },
  );

  it('POST /flags and PATCH /flags/seeded: 201/200 or a 4xx JSON error, never 5xx; flags change only by accepted creates', async () => {
    let known = await flagKeys();
    expect(known).toContain('seeded');
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('POST', 'PATCH'), httpBody, async (method, text) => {
        let parsed: unknown;
        let isJson = true;
        try {
          parsed = JSON.parse(text);
        } catch {
          isJson = false;
        }
        const res =
          method === 'POST'
            ? await t.api('POST', '/flags', text)
            : await t.api('PATCH', '/flags/seeded', text);
        expect(res.status).toBeLessThan(500);
        const expected = [...known];
        if (res.status === 413) {
          // Too large to read (`MAX_BODY_BYTES`): refused before validation.
          expect(Buffer.byteLength(text)).toBeGreaterThan(MAX_BODY_BYTES);
          expect((await expectClientError(res)).error).toBe('PAYLOAD_TOO_LARGE');
        } else if (method === 'POST') {
          const verdict = isJson ? validateCreateFlag(parsed) : undefined;
          if (res.status === 201) {
            expect(verdict?.ok).toBe(true);
            const created = (await res.json()) as { key: string; type: string; enabled: boolean };
            const value = (verdict as { ok: true; value: CreateBody }).value;
            expect(created.key).toBe(value.key);
            expect(created.type).toBe(value.type);
            expect(created.enabled).toBe(false);
            expect(known).not.toContain(value.key);
            expected.push(value.key);
          } else {
            const error = await expectClientError(res);
            if (verdict?.ok) {
              // Only a taken key may turn a valid body down.
              expect(res.status).toBe(409);
              expect(known).toContain(verdict.value.key);
            } else if (isJson) {
              expect(res.status).toBe(400);
              expect(error.error).toBe('VALIDATION_ERROR');
              expect(error.message).toBe((verdict as { message: string }).message);
            }
          }
        } else {
          const verdict = isJson ? validateUpdateFlag(parsed, 'rollout') : undefined;
          if (res.status === 200) {
            expect(verdict?.ok).toBe(true);
            const flag = (await res.json()) as Record<string, unknown>;
            expect(flag.key).toBe('seeded');
            for (const [field, value] of Object.entries((verdict as { ok: true; value: object }).value)) {
              expect(flag[field]).toStrictEqual(value);
            }
          } else {
            await expectClientError(res);
            expect(verdict?.ok).not.toBe(true);
          }
        }
        expected.sort();
        const now = await flagKeys();
        expect(now).toEqual(expected);
        known = now;
      }),
      params(200),
    );
  });
});
