/**
 * OFREP's answers (`docs/protocol.md` §11) checked against the published OpenAPI document,
 * open-feature/protocol's `service/openapi.yaml` v0.3.0, vendored unchanged in
 * test/fixtures/ofrep: every single and bulk answer of a real server, successes and failures,
 * for flags of every type and shape and several contexts, against the schema the document gives
 * that path and status (`401` and `304` have no body there, nor here). Statuses the document does
 * not describe (405, 413, 415, 503) are left out.
 *
 * The document has one defect, repaired here before validating (and checked to still be there,
 * so the repair goes when the document is fixed): `codeDefaultFlag` is `type: object,
 * properties: {}`, which every object matches, so `evaluationSuccess`'s `oneOf` of value types
 * never matches exactly once, and an integer value matches both `integerFlag` and `floatFlag`: as
 * published it refuses every success, its own examples included. Repaired: `codeDefaultFlag` is
 * an answer without `value` (as its own description says), and `floatFlag`'s value is a
 * number that is not an integer.
 *
 * Every answer is also held to Flagwire's own description of OFREP (`src/core/schemas/ofrep.ts`,
 * the schemas its server validates requests with), so the two cannot drift apart.
 */
import { readFileSync } from 'node:fs';
import type { TSchema } from '@sinclair/typebox';
import Ajv2020 from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { checkSchema } from '../../../src/core/schemas/check.js';
import * as Ofrep from '../../../src/core/schemas/ofrep.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const FIXTURE = new URL('../../fixtures/ofrep/openapi.yaml', import.meta.url);

interface OpenApi {
  info: { version: string };
  paths: Record<
    string,
    { post: { responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }> } }
  >;
  components: { schemas: Record<string, Record<string, unknown> & { properties?: Record<string, object> }> };
}

function readDocument(): OpenApi {
  let text: string;
  try {
    text = readFileSync(FIXTURE, 'utf8');
  } catch {
    throw new Error(
      "test/fixtures/ofrep/openapi.yaml is missing: place open-feature/protocol's service/openapi.yaml (v0.3.0) there, unchanged (test/fixtures/ofrep/README.md)",
    );
  }
  return parse(text) as OpenApi;
}

/** The document with its one defect repaired (see the top of this file). */
function repaired(published: OpenApi): OpenApi {
  const doc = structuredClone(published);
  const { codeDefaultFlag, floatFlag } = doc.components.schemas;
  if (!codeDefaultFlag || !floatFlag?.properties?.value)
    throw new Error('the document has no codeDefaultFlag or floatFlag.value to repair: read it again');
  codeDefaultFlag.not = { required: ['value'] };
  floatFlag.properties.value = { ...floatFlag.properties.value, not: { type: 'integer' } };
  return doc;
}

const published = readDocument();
// OpenAPI 3.1's schemas are JSON Schema 2020-12; `strict: false` lets the document's other keys be.
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema(published, 'published');
ajv.addSchema(repaired(published), 'repaired');

const SINGLE = '/ofrep/v1/evaluate/flags/{key}';
const BULK = '/ofrep/v1/evaluate/flags';

/** The validator of the body the document gives `path` answering `status`, in `doc` (`published` or `repaired`). */
function schemaOf(doc: 'published' | 'repaired', path: string, status: number) {
  const response = published.paths[path]?.post.responses[String(status)];
  const ref = response?.content?.['application/json']?.schema.$ref;
  if (!ref) throw new Error(`the document gives no JSON body for ${path} answering ${status}`);
  return ajv.getSchema(`${doc}${ref}`)!;
}

let t: TestServer;
const counts = {
  own: 0,
  singleSuccess: 0,
  singleFailure: 0,
  bulk: 0,
  bulkItems: 0,
  bulkFailure: 0,
  noBody: 0,
};

const TEXT = { variants: { a: 'A', b: 'B', c: 'C' } };
const FLAGS: Array<Record<string, unknown>> = [
  { key: 'bool-on', type: 'boolean', enabled: true },
  { key: 'bool-off', type: 'boolean' },
  { key: 'bool-fallthrough', type: 'boolean', fallthrough: { variant: 'off' }, enabled: true },
  { key: 'rollout-0', type: 'rollout', percentage: 0, enabled: true },
  { key: 'rollout-50', type: 'rollout', percentage: 50, enabled: true },
  { key: 'rollout-100', type: 'rollout', percentage: 100, enabled: true },
  { key: 'text', type: 'string', ...TEXT, enabled: true },
  { key: 'text-off', type: 'string', ...TEXT, offVariant: 'c' },
  {
    key: 'text-targeted',
    type: 'string',
    ...TEXT,
    targets: [{ variant: 'c', keys: ['ann'] }],
    rules: [
      { clauses: [{ attribute: 'plan', op: 'in', values: ['pro'] }], serve: { variant: 'b' } },
      {
        clauses: [{ attribute: 'country', op: 'in', values: ['NZ'] }],
        serve: {
          split: [
            { variant: 'a', weight: 50_000 },
            { variant: 'c', weight: 50_000 },
          ],
        },
      },
    ],
    enabled: true,
  },
  {
    key: 'text-split',
    type: 'string',
    ...TEXT,
    fallthrough: {
      split: [
        { variant: 'a', weight: 30_000 },
        { variant: 'b', weight: 70_000 },
        { variant: 'c', weight: 0 },
      ],
    },
    enabled: true,
  },
  {
    key: 'count',
    type: 'number',
    variants: { few: 0, many: 10 },
    fallthrough: { variant: 'many' },
    enabled: true,
  },
  {
    key: 'factor',
    type: 'number',
    variants: { low: 0.5, high: 1.25 },
    fallthrough: { variant: 'high' },
    enabled: true,
  },
  {
    key: 'layout',
    type: 'json',
    variants: { grid: { columns: 3, tags: ['a'] }, empty: {} },
    rules: [{ clauses: [{ attribute: 'plan', op: 'in', values: ['pro'] }], serve: { variant: 'empty' } }],
    enabled: true,
  },
  { key: 'gated', type: 'boolean', prerequisites: [{ flag: 'bool-off', variants: ['on'] }], enabled: true },
  {
    key: 'gated-open',
    type: 'string',
    ...TEXT,
    prerequisites: [{ flag: 'bool-on', variants: ['on'] }],
    enabled: true,
  },
];

const CONTEXTS: Array<Record<string, unknown>> = [
  {},
  { targetingKey: 'u-1' },
  { targetingKey: 'u-2', plan: 'pro' },
  { targetingKey: 'u-3', country: 'NZ' },
  { targetingKey: 'u-4', country: 'NZ' },
  { targetingKey: 'ann' },
  { targetingKey: '' },
];

const post = (path: string, body: string) =>
  fetch(`${t.server.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.fullKey}`, 'content-type': 'application/json' },
    body,
  });

/** Asserts `body` is valid for `path` answering `status`, with Ajv's errors in the message. */
function expectValid(path: string, status: number, body: unknown, what: string): void {
  const validate = schemaOf('repaired', path, status);
  const valid = validate(body);
  expect(
    valid,
    `${what}: ${JSON.stringify(body)}\n${ajv.errorsText(validate.errors, { separator: '\n' })}`,
  ).toBe(true);
  // And Flagwire's own description of the answer (src/core/schemas/ofrep.ts), checked by TypeBox.
  const own = OWN[path]?.[status];
  if (!own) throw new Error(`src/core/schemas/ofrep.ts describes no answer for ${path} ${status}`);
  const checked = checkSchema(own, body);
  expect(checked.ok, `${what}: ${JSON.stringify(body)}\n${checked.ok ? '' : checked.message}`).toBe(true);
  counts.own++;
}

/** Flagwire's schema of each answer: its own description of OFREP (protocol §11). */
const OWN: Record<string, Record<number, TSchema>> = {
  '/ofrep/v1/evaluate/flags/{key}': {
    200: Ofrep.OfrepEvaluationSuccess,
    400: Ofrep.OfrepEvaluationFailure,
    404: Ofrep.OfrepEvaluationFailure,
  },
  '/ofrep/v1/evaluate/flags': {
    200: Ofrep.OfrepBulkEvaluationSuccess,
    400: Ofrep.OfrepBulkEvaluationFailure,
  },
};

beforeAll(async () => {
  t = await startTestServer({ config: undefined });
  for (const { enabled, ...flag } of FLAGS) {
    const made = await t.api('POST', '/flags', flag);
    expect(made.status, `${flag.key}: ${await made.clone().text()}`).toBe(201);
    if (enabled) expect((await t.api('PATCH', `/flags/${flag.key}`, { enabled: true })).status).toBe(200);
  }
});

afterAll(async () => {
  console.log(
    `OFREP OpenAPI ${published.info.version} (repaired): ${counts.singleSuccess} single successes, ` +
      `${counts.singleFailure} single failures, ${counts.bulk} bulk answers (${counts.bulkItems} flags), ` +
      `${counts.bulkFailure} bulk failures and ${counts.noBody} answers without a body valid; ` +
      `${counts.own} answers valid against Flagwire's own schemas too`,
  );
  await t?.close();
});

describe('the published document', () => {
  it(`is v0.3.0, and as published refuses every success (the defect this test repairs)`, () => {
    expect(published.info.version).toBe('0.3.0');
    const success = { key: 'f', value: true, reason: 'STATIC', variant: 'on' };
    expect(schemaOf('published', SINGLE, 200)(success)).toBe(false);
    expect(schemaOf('repaired', SINGLE, 200)(success)).toBe(true);
    expect(schemaOf('repaired', SINGLE, 200)({ ...success, value: 3 })).toBe(true);
    expect(schemaOf('repaired', SINGLE, 200)({ ...success, value: 2.5 })).toBe(true);
    expect(schemaOf('repaired', SINGLE, 200)({ ...success, value: [1] })).toBe(false);
    expect(schemaOf('repaired', SINGLE, 200)({ ...success, value: null })).toBe(false);
  });
});

describe('live answers', () => {
  it('single evaluation: every flag for every context, and a flag that does not exist', async () => {
    const keys = [...FLAGS.map((f) => f.key as string), 'no-such-flag'];
    for (const key of keys)
      for (const context of CONTEXTS) {
        const res = await post(`/ofrep/v1/evaluate/flags/${key}`, JSON.stringify({ context }));
        const body = (await res.json()) as Record<string, unknown>;
        expect([200, 400, 404], JSON.stringify(body)).toContain(res.status);
        expectValid(SINGLE, res.status, body, `${key} for ${JSON.stringify(context)}`);
        if (res.status === 200) counts.singleSuccess++;
        else counts.singleFailure++;
      }
    // Both kinds of answers, each kind of value, every reason but UNKNOWN.
    expect(counts.singleSuccess).toBeGreaterThan(80);
    expect(counts.singleFailure).toBeGreaterThan(8);
  });

  it('single evaluation: malformed bodies and contexts', async () => {
    for (const [body, errorCode] of [
      ['{"context":', 'PARSE_ERROR'],
      ['[1]', 'INVALID_CONTEXT'],
      ['{"context":"x"}', 'INVALID_CONTEXT'],
      ['{"context":{"targetingKey":7}}', 'INVALID_CONTEXT'],
      [
        JSON.stringify({ context: { deep: JSON.parse(`${'['.repeat(40)}${']'.repeat(40)}`) } }),
        'INVALID_CONTEXT',
      ],
    ] as const) {
      const res = await post('/ofrep/v1/evaluate/flags/text', body);
      expect(res.status).toBe(400);
      const answer = await res.json();
      expect(answer).toMatchObject({ key: 'text', errorCode });
      expectValid(SINGLE, 400, answer, body);
      counts.singleFailure++;
    }
  });

  it('bulk evaluation: every context; malformed bodies', async () => {
    for (const context of CONTEXTS) {
      const res = await post(BULK, JSON.stringify({ context }));
      expect(res.status).toBe(200);
      const body = (await res.json()) as { flags: Array<Record<string, unknown>> };
      expectValid(BULK, 200, body, `bulk for ${JSON.stringify(context)}`);
      expect(body.flags).toHaveLength(FLAGS.length);
      counts.bulk++;
      counts.bulkItems += body.flags.length;
    }
    for (const body of ['{"context":', '{"context":[]}']) {
      const res = await post(BULK, body);
      expect(res.status).toBe(400);
      expectValid(BULK, 400, await res.json(), body);
      counts.bulkFailure++;
    }
  });

  it('401 and 304 have no body, as the document describes them', async () => {
    const denied = await fetch(`${t.server.url}/ofrep/v1/evaluate/flags/text`, {
      method: 'POST',
      body: '{}',
    });
    expect(denied.status).toBe(401);
    expect(await denied.text()).toBe('');
    const first = await post(BULK, '{}');
    await first.body?.cancel();
    const again = await fetch(`${t.server.url}${BULK}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${t.fullKey}`,
        'content-type': 'application/json',
        'if-none-match': first.headers.get('etag')!,
      },
      body: '{}',
    });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    for (const [path, status] of [
      [SINGLE, 401],
      [BULK, 304],
    ] as const)
      expect(published.paths[path]!.post.responses[String(status)]!.content).toBeUndefined();
    counts.noBody += 2;
  });
});
