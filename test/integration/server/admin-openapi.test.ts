/**
 * `GET /admin/api/openapi.json` (docs/protocol.md §10, §3.5): behind the admin credential, a
 * valid OpenAPI 3.1 document listing every route the admin API serves (its own, and the
 * environment's `/api/v1` routes under `environments/{project}/{env}/`), each described; and true
 * of the live server: the walk calls every operation, valid and refused (no credential, the
 * session cookie from another origin, an API key), and holds each answer to the document.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlagwireServer } from '../../../server/index.js';
import { routesOf } from '../../../server/start-server.js';
import { adminCaller } from '../../helpers/admin.js';
import { type AdminWalkServer, adminRecipes, scopedRecipes } from '../../helpers/openapi-recipes/admin.js';
import { auditRecipes } from '../../helpers/openapi-recipes/audit.js';
import { changeRecipes } from '../../helpers/openapi-recipes/changes.js';
import { flagsRecipes } from '../../helpers/openapi-recipes/flags.js';
import { withPeople } from '../../helpers/openapi-recipes/people.js';
import { segmentsRecipes } from '../../helpers/openapi-recipes/segments.js';
import { ssoRecipes } from '../../helpers/openapi-recipes/sso.js';
import { usageRecipes } from '../../helpers/openapi-recipes/usage.js';
import { webhookRecipes } from '../../helpers/openapi-recipes/webhooks.js';
import { listedOperations, servedOperations, walkDocument } from '../../helpers/openapi-walk.js';
import { KEYS, startTestServer, TEST_CONFIG, type TestServer } from '../../helpers/server.js';

const TOKEN = 'fw_admin_WalkToken0000000000000000000000';
const CLIENT_KEY = 'fw_live_AcmeProdClient000000000000000000';
/** The walk's "client key": the session cookie, sent from a page of another origin. */
const ELSEWHERE = 'cookie-from-elsewhere';

let t: TestServer;
let doc: Record<string, unknown> & { paths: Record<string, Record<string, { summary: string }>> };

beforeAll(async () => {
  const config = structuredClone(TEST_CONFIG);
  config.projects[0]!.environments[0]!.apiKeys!.push({ key: CLIENT_KEY, access: 'client' });
  t = await startTestServer({ config, adminToken: TOKEN });
  const response = await fetch(`${t.server.url}/admin/api/openapi.json`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  expect(response.status).toBe(200);
  doc = await response.json();
});
afterAll(() => t?.close());

describe('the admin API document', () => {
  it('is served behind the admin credential only', async () => {
    const url = `${t.server.url}/admin/api/openapi.json`;
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: `Bearer ${KEYS.acmeProdFull}` } })).status).toBe(
      401,
    );
    const { cookie } = await adminCaller(t.server);
    expect((await fetch(url, { headers: { cookie } })).status).toBe(200);
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
  });

  it('lists every route and method the admin API serves, each described', () => {
    const { listed, undescribed } = listedOperations(doc);
    expect(listed).toEqual(servedOperations(routesOf(t.server as FlagwireServer)!.admin));
    // The admin API's own and the environment's routes, the usage reads among them.
    for (const path of ['/session', '/overview', '/events', '/environments/{project}/{env}/webhooks/{id}'])
      expect(listed).toContainEqual(expect.stringMatching(new RegExp(` ${path.replace(/[{}]/g, '\\$&')}$`)));
    expect(undescribed).toEqual([]);
  });

  it('is true of the live server: every operation answers as described, every documented status is reached', async () => {
    const origin = new URL(t.server.url).origin;
    const { cookie } = await adminCaller(t.server);
    const server: AdminWalkServer = {
      origin,
      token: TOKEN,
      api: {
        base: t.base,
        keys: { full: KEYS.acmeProdFull, readOnly: KEYS.acmeProdRead, client: CLIENT_KEY },
      },
    };
    const recipes = withPeople(
      server,
      {
        ...adminRecipes(server),
        ...auditRecipes,
        ...ssoRecipes,
        ...changeRecipes(server),
        ...scopedRecipes({ ...flagsRecipes, ...segmentsRecipes, ...usageRecipes, ...webhookRecipes }, server),
      },
      doc,
    );
    const walked = await walkDocument(
      doc as never,
      origin,
      // The admin token; the session cookie from another origin; an API key (never the admin's).
      { full: TOKEN, client: ELSEWHERE, readOnly: KEYS.acmeProdFull },
      recipes,
      {
        authorize: (key) =>
          key === ELSEWHERE
            ? { cookie, origin: 'http://elsewhere.example' }
            : { authorization: `Bearer ${key}`, origin },
      },
    );
    expect(walked.problems).toEqual([]);
    const statuses = [...walked.reached.values()].reduce((n, s) => n + s.size, 0);
    console.log(
      `admin openapi walk: ${walked.reached.size} operations, ${walked.requests} requests, ${statuses} documented statuses reached`,
    );
  }, 60_000);
});
