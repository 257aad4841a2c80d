/**
 * `GET /api/v1/openapi.json` (docs/protocol.md §3.5): a valid OpenAPI 3.1 document, listing every
 * route the server serves with a description of its own, and true of the live server: the walk
 * calls every operation, valid and refused, and holds each answer to the document.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlagwireServer } from '../../../server/index.js';
import { routesOf } from '../../../server/start-server.js';
import { documentRecipes } from '../../helpers/openapi-recipes/document.js';
import { flagsRecipes } from '../../helpers/openapi-recipes/flags.js';
import { sdkRecipes } from '../../helpers/openapi-recipes/sdk.js';
import { segmentsRecipes } from '../../helpers/openapi-recipes/segments.js';
import { usageRecipes } from '../../helpers/openapi-recipes/usage.js';
import { webhookRecipes } from '../../helpers/openapi-recipes/webhooks.js';
import { listedOperations, servedOperations, walkDocument } from '../../helpers/openapi-walk.js';
import { KEYS, startTestServer, TEST_CONFIG, type TestServer } from '../../helpers/server.js';

const CLIENT_KEY = 'fw_live_AcmeProdClient000000000000000000';
const RECIPES = {
  ...documentRecipes,
  ...flagsRecipes,
  ...segmentsRecipes,
  ...sdkRecipes,
  ...usageRecipes,
  ...webhookRecipes,
};

let t: TestServer;
let doc: Record<string, unknown> & { paths: Record<string, Record<string, { summary: string }>> };

beforeAll(async () => {
  const config = structuredClone(TEST_CONFIG);
  config.projects[0]!.environments[0]!.apiKeys!.push({ key: CLIENT_KEY, access: 'client' });
  t = await startTestServer({ config });
  const response = await fetch(`${t.base}/openapi.json`);
  expect(response.status).toBe(200);
  doc = await response.json();
});
afterAll(() => t?.close());

describe('the API document', () => {
  it('is served without a key, as a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
  });

  it('lists every route and method the server serves, each described', () => {
    const { listed, undescribed } = listedOperations(doc);
    expect(listed).toEqual(servedOperations(routesOf(t.server as FlagwireServer)!.api));
    expect(undescribed).toEqual([]);
  });

  it('is true of the live server: every operation answers as described, every documented status is reached', async () => {
    const origin = new URL(t.base).origin;
    const walked = await walkDocument(
      doc as never,
      origin,
      { full: KEYS.acmeProdFull, readOnly: KEYS.acmeProdRead, client: CLIENT_KEY },
      RECIPES,
    );
    expect(walked.problems).toEqual([]);
    const statuses = [...walked.reached.values()].reduce((n, s) => n + s.size, 0);
    console.log(
      `openapi walk: ${walked.reached.size} operations, ${walked.requests} requests, ${statuses} documented statuses reached`,
    );
  });
});
