/**
 * The flag manifest the OpenFeature CLI pulls (`GET /openfeature/v0/manifest`, protocol.md
 * §11.5) on a real server with boolean, rollout, string, number and json flags: its credential
 * (401 without one, read-only allowed, a client key refused), its body byte for byte and against
 * the CLI's published contracts (vendored in test/fixtures/openfeature-cli: every live answer
 * against the response sync.yaml documents for its path, method and status, and the manifest file
 * `openfeature pull` writes, checked against its JSON schema), its write paths refused as sync.yaml
 * documents for a token without write scope, and the CLI's own `generate nodejs` output compiled
 * against `@openfeature/server-sdk` with `FlagwireProvider`. The CLI itself is a Go binary with no
 * npm package, so it does not run here.
 */
import { readFileSync } from 'node:fs';
import Ajv from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { TestServer } from '../../helpers/server.js';
import { compileProject } from '../../helpers/tsc-project.js';
import { TYPEGEN_KEYS as K, startTypegenServer } from '../../helpers/typegen.js';

const vendored = (name: string) =>
  readFileSync(new URL(`../../fixtures/openfeature-cli/${name}`, import.meta.url), 'utf8');

// The sync API's OpenAPI document as a schema store: its components are JSON Schema (with
// OpenAPI's `nullable`, which Ajv knows); `strict: false` lets the document's other keys be.
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
const sync = parse(vendored('sync.yaml')) as {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: { $ref: string } }> }> }>
  >;
};
ajv.addSchema(sync, 'sync.yaml');
const envelopeValid = ajv.getSchema('sync.yaml#/components/schemas/ManifestEnvelope')!;
const errorValid = ajv.getSchema('sync.yaml#/components/schemas/ErrorResponse')!;
const manifestFileValid = ajv.compile(JSON.parse(vendored('flag-manifest.json')));

/**
 * Reads `res`, the answer to `method` on sync.yaml's path `template`, and checks it is one
 * sync.yaml documents: that status for that operation, a JSON body valid by its schema.
 */
async function documentedAnswer(res: Response, method: string, template: string): Promise<unknown> {
  const response = sync.paths[template]?.[method.toLowerCase()]?.responses[String(res.status)];
  expect(response, `sync.yaml documents no ${res.status} for ${method} ${template}`).toBeDefined();
  expect(res.headers.get('content-type')).toBe('application/json');
  const validate = ajv.getSchema(`sync.yaml${response!.content!['application/json']!.schema.$ref}`)!;
  const body = await res.json();
  expect(validate(body), `${method} ${template} ${res.status}: ${JSON.stringify(validate.errors)}`).toBe(
    true,
  );
  return body;
}

interface ManifestFlag {
  key: string;
  type: string;
  description: string | null;
  defaultValue: unknown;
}

const EXPECTED: ManifestFlag[] = [
  {
    key: 'banner',
    type: 'object',
    description: 'The home page banner (a */ in a description is escaped).',
    defaultValue: { title: 'Sale', dismissible: true },
  },
  { key: 'levels', type: 'object', description: null, defaultValue: { level: 'low' } },
  { key: 'max-items', type: 'integer', description: null, defaultValue: 10 },
  { key: 'new-checkout', type: 'boolean', description: 'The new checkout flow.', defaultValue: false },
  { key: 'search-rollout', type: 'boolean', description: null, defaultValue: false },
  {
    key: 'theme',
    type: 'string',
    description: 'Colour scheme.\nSee the design system.',
    defaultValue: 'light',
  },
];

let t: TestServer;
beforeAll(async () => {
  t = await startTypegenServer();
});
afterAll(() => t?.close());

const manifest = (init: RequestInit = {}, path = '/openfeature/v0/manifest') =>
  fetch(`${t.server.url}${path}`, init);
const bearer = (key: string) => ({ headers: { authorization: `Bearer ${key}` } });

describe('GET /openfeature/v0/manifest', () => {
  it('needs an API key of the environment: 401 without one, with a wrong one or the admin token', async () => {
    for (const init of [
      {},
      bearer('fw_live_0000000000000000000000000000000x'),
      bearer(t.server.adminToken!),
    ]) {
      const res = await manifest(init);
      expect(res.status).toBe(401);
      expect(await documentedAnswer(res, 'GET', '/openfeature/v0/manifest')).toEqual({
        error: {
          message: 'an API key of the environment is required: Authorization: Bearer <key>',
          status: 401,
        },
      });
    }
  });

  it('refuses a client key (403): it evaluates through OFREP only', async () => {
    const res = await manifest(bearer(K.shopProdClient));
    expect(res.status).toBe(403);
    const body = (await documentedAnswer(res, 'GET', '/openfeature/v0/manifest')) as { error: unknown };
    expect(body.error).toMatchObject({ status: 403, message: expect.stringMatching(/read-only key/) });
  });

  it("answers a read-only key (and a full one) with the environment's flags, sorted, in the sync API's shape", async () => {
    const res = await manifest(bearer(K.shopProdRead));
    expect(res.status).toBe(200);
    expect(res.headers.get('x-manifest-capabilities')).toBe('read');
    const body = (await documentedAnswer(res, 'GET', '/openfeature/v0/manifest')) as {
      flags: ManifestFlag[];
    };
    expect(body).toEqual({ flags: EXPECTED });
    const full = await manifest(bearer(K.shopProdFull));
    expect(await full.json()).toEqual(body);
    // Another environment's key answers that environment's flags.
    const staging = (await (await manifest(bearer(K.shopStageFull))).json()) as { flags: ManifestFlag[] };
    expect(staging.flags.map((f) => [f.key, f.type, f.defaultValue])).toEqual([
      ['new-checkout', 'boolean', false],
      ['staging-only', 'boolean', false],
      ['theme', 'string', 'dark'],
    ]);
  });

  it("is the sync API's ManifestEnvelope whole: a number flag with a non-integer value, which it cannot type, is left out", async () => {
    const body = (await (await manifest(bearer(K.shopProdRead))).json()) as { flags: ManifestFlag[] };
    expect(envelopeValid(body), JSON.stringify(envelopeValid.errors)).toBe(true);
    // sync.yaml's types are boolean, string, integer and object, its default values the same: a
    // `float` (the CLI's manifest-file name) or 1.25 in either place is outside them.
    expect(body.flags.map((f) => f.key)).not.toContain('price-factor');
    for (const [type, defaultValue] of [
      ['float', 1.25],
      ['integer', 1.25],
    ] as const) {
      const flag = { key: 'price-factor', type, description: null, defaultValue };
      expect(envelopeValid({ flags: [flag] })).toBe(false);
    }
    // An integer number flag stays in, as `integer`.
    expect(body.flags.find((f) => f.key === 'max-items')).toMatchObject({
      type: 'integer',
      defaultValue: 10,
    });
  });

  it('gives the manifest file `openfeature pull` writes from it, valid by the CLI schema', async () => {
    const body = (await (await manifest(bearer(K.shopProdRead))).json()) as { flags: ManifestFlag[] };
    // As the CLI's PullFlags and manifest.Write do: flags by key, `flagType`, a null description as "".
    const file = {
      flags: Object.fromEntries(
        body.flags.map((f) => [
          f.key,
          { flagType: f.type, description: f.description ?? '', defaultValue: f.defaultValue },
        ]),
      ),
    };
    expect(manifestFileValid(file), JSON.stringify(manifestFileValid.errors)).toBe(true);
    // And the schema can fail: a boolean flag with a string default is no manifest.
    const broken = { flags: { x: { flagType: 'boolean', description: '', defaultValue: 'off' } } };
    expect(manifestFileValid(broken)).toBe(false);
  });

  it('is read-only: the sync API writes answer 403 as sync.yaml documents for a token without write scope', async () => {
    const key = bearer(K.shopProdFull).headers;
    const json = { ...key, 'content-type': 'application/json' };
    const body = JSON.stringify({ key: 'x', type: 'boolean', defaultValue: false });
    for (const [method, path, template] of [
      ['POST', '/openfeature/v0/manifest/flags', '/openfeature/v0/manifest/flags'],
      ['PUT', '/openfeature/v0/manifest/flags/new-checkout', '/openfeature/v0/manifest/flags/{key}'],
      ['DELETE', '/openfeature/v0/manifest/flags/new-checkout', '/openfeature/v0/manifest/flags/{key}'],
    ] as const) {
      const init = { method, headers: json, ...(method === 'DELETE' ? {} : { body }) };
      const res = await manifest(init, path);
      expect(res.status, `${method} ${path}`).toBe(403);
      const answer = (await documentedAnswer(res, method, template)) as { error: { message: string } };
      expect(answer.error.message).toMatch(/does not have write access: Flagwire's manifest is read-only/);
      // Without a key, 401 as documented; a read-only key has no write scope either.
      const anonymous = await manifest(
        { method, headers: { 'content-type': 'application/json' }, body },
        path,
      );
      expect(anonymous.status).toBe(401);
      await documentedAnswer(anonymous, method, template);
      const read = await manifest({ ...init, headers: { ...json, ...bearer(K.shopProdRead).headers } }, path);
      expect(read.status).toBe(403);
      await documentedAnswer(read, method, template);
    }
    // Methods sync.yaml does not document on a path: 405, with what is allowed there.
    for (const [method, path, allow] of [
      ['POST', '/openfeature/v0/manifest', 'GET, HEAD, OPTIONS'],
      ['GET', '/openfeature/v0/manifest/flags', 'POST, OPTIONS'],
      ['POST', '/openfeature/v0/manifest/flags/new-checkout', 'PUT, DELETE, OPTIONS'],
    ] as const) {
      const res = await manifest({ method, headers: json, ...(method === 'GET' ? {} : { body }) }, path);
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.get('allow')).toBe(allow);
      expect(errorValid(await res.json())).toBe(true);
    }
  });

  it('answers HEAD, OPTIONS and a trailing slash', async () => {
    const key = bearer(K.shopProdFull).headers;
    const head = await manifest({ method: 'HEAD', headers: key });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const preflight = await manifest({ method: 'OPTIONS' });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect((await manifest({ headers: key }, '/openfeature/v0/manifest/')).status).toBe(200);
  });
});

describe("the CLI's generated accessors", () => {
  it('compile against @openfeature/server-sdk with FlagwireProvider', async () => {
    const { diagnostics, output } = await compileProject({
      type: 'module',
      resolution: 'node16',
      files: {
        'openfeature.ts': vendored('success_nodejs.golden'),
        'main.ts': [
          "import { OpenFeature } from '@openfeature/server-sdk';",
          "import { FlagwireProvider } from 'flagwire/openfeature';",
          "import { FlagKeys, getGeneratedClient } from './openfeature.js';",
          '',
          'export async function main(baseUrl: string, apiKey: string): Promise<string> {',
          '  await OpenFeature.setProviderAndWait(new FlagwireProvider({ baseUrl, apiKey }));',
          "  const flags = getGeneratedClient({ targetingKey: 'user-42' });",
          '  const on: boolean = await flags.enableFeatureA();',
          '  const share: number = await flags.discountPercentage();',
          '  const detail = await flags.greetingMessageDetails();',
          '  return [FlagKeys.ENABLE_FEATURE_A, on, share, detail.value].join(" ");',
          '}',
          '',
        ].join('\n'),
      },
    });
    expect(diagnostics, output).toEqual([]);
  });
});
