/**
 * `GET /api/v1/openapi.json` read by a generator this project did not write: openapi-typescript
 * turns the live document into types, and a client written against them type-checks, while the
 * same client with a value the schema refuses does not (the types say something).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let t: TestServer;
let dir: string;

beforeAll(async () => {
  t = await startTestServer();
  dir = mkdtempSync(join(tmpdir(), 'flagwire-openapi-'));
});
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The diagnostics of `client` compiled beside the generated `api.ts`. */
function compile(client: string): string[] {
  writeFileSync(join(dir, 'client.ts'), client);
  const program = ts.createProgram([join(dir, 'client.ts')], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    types: [],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

const CLIENT = (events: string) => `
import type { components, operations, paths } from './api';
type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
export type Created = Json<paths['/webhooks']['post']['responses'][201]>;
export const hook: Created = {
  id: 'wh_1', url: 'https://example.com', events: [${events}], secret: 's', active: true,
};
export const body: components['schemas']['CreateWebhookInput'] = { url: 'https://example.com', events: ['flag.updated'] };
export type ListOp = operations['getWebhooks'];
`;

it('openapi-typescript reads it; a client typed by it compiles, and refuses what the schema refuses', async () => {
  const document = await (await fetch(`${t.base}/openapi.json`)).json();
  const ast = await openapiTS(document);
  writeFileSync(join(dir, 'api.ts'), astToString(ast));
  expect(compile(CLIENT("'flag.enabled'"))).toEqual([]);
  const refused = compile(CLIENT("'flag.exploded'"));
  expect(refused.length).toBeGreaterThan(0);
  expect(refused.join('\n')).toContain('flag.exploded');
});
