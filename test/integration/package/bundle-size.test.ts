/**
 * Browser bundles of the built package, as an app resolves it (`import ... from 'flagwire'`
 * through the package's `exports`, `browser`/`import` conditions), minified and gzipped, stay
 * under their budgets and pull in no `node:` module: what an app that only evaluates flags ships
 * (the SDK's own event-stream reader, the hashing code, the targeting evaluator and the
 * linear-time `matches` machine included, but not the pattern parser: the server sends each
 * pattern's program, `docs/protocol.md` §12.6; 10.9 KiB, down from 15.6 KiB with the
 * `eventsource` package and a parser of its own), and the whole entry
 * (webhook verification with its pure-JS SHA-256 included). `npm test` builds first, so `dist/`
 * is the code being tested.
 */
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { afterAll, beforeAll, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
/** An app folder whose `node_modules/flagwire` is this package (as `npm install` links a local one). */
let app: string;

beforeAll(async () => {
  app = await mkdtemp(join(tmpdir(), 'flagwire-bundle-'));
  await mkdir(join(app, 'node_modules'));
  await symlink(ROOT, join(app, 'node_modules', 'flagwire'), 'dir');
});
afterAll(() => rm(app, { recursive: true, force: true }));

async function measure(
  contents: string,
  external: string[] = [],
): Promise<{ gzipped: number; minified: number; inputs: string[]; text: string }> {
  const result = await build({
    external,
    // No tsconfig of ours is in reach of the app folder: `flagwire` resolves through node_modules.
    stdin: { contents, resolveDir: app, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const bytes = result.outputFiles[0]!.contents;
  return {
    gzipped: gzipSync(bytes, { level: 9 }).length,
    minified: bytes.length,
    inputs: Object.keys(result.metafile.inputs),
    text: result.outputFiles[0]!.text,
  };
}

const EVALUATING_APP = `
import { createClient } from 'flagwire';
const client = createClient({ baseUrl: 'https://flags.example.com/api/v1', apiKey: 'fw_live_example' });
await client.ready();
console.log(client.isEnabled('new-checkout', { key: 'user-42' }), client.getString('banner', { key: 'user-42' }, 'red'));
`;

it.each([
  // Targeting inside (the evaluator and the linear-time machine): 11,204 B measured, issue 21's
  // 11 KiB. Usage reports are on by default (issue 24: counting, the reporter with its retries
  // and page-hide sends, `on('evaluation')`), so every app ships them: +2,150 B, 13,355 B measured;
  // then written for size (a shorter random id, closures, the client's deadline and Retry-After
  // parsing shared, counter slots as constants): 13,148 B measured. The review's fixes of the
  // reporter (a last report on close(), usage off for an hour rather than for good, reports sent
  // at once with keepalive when the page is left, reports over 900 KB split, unknown keys
  // checked against the flag-key pattern, the runtime's first token, `exposure` forgetting the
  // least recent): +289 B, 13,437 B measured, so the budget went up by 0.25 KiB to 13.25 KiB.
  // Issue 32: 13,553 B. Issue 33: the second evaluator gone (-276 B: 13,511 B with what came with
  // it), an awaited flush()/close() holding the process and close() retrying a report (+190 B),
  // STATIC (+42 B), then the evaluator's short way for plain flags and compiled answers, which
  // keep isEnabled at the speed of the second evaluator (+212 B): 13,723 B. Over 13.25 KiB, so
  // 13.5 KiB. Typed clauses (named tests and orders, operands by test), an attribute read once
  // for consecutive clauses on it, no module-level split point: 13,722 B.
  ['an app that evaluates flags (createClient, ready, isEnabled, getString)', EVALUATING_APP, 13.5 * 1024],
  // 18,798 B measured with usage reports, 18,599 B once they were written for size, 18,873 B with
  // the review's fixes of the reporter (as above; the flag-key pattern was in already): 18.5 KiB.
  // Issue 32: the management client's versions (read(), ifVersion, PRECONDITION_FAILED with
  // `current`), attributes read as own properties, one decision per segment and prerequisite in
  // an evaluation: 19,261 B measured, so 19 KiB. 19,431 B before the change requests' webhook
  // events; with them (the six `change_request.*` kinds in WEBHOOK_EVENT_KINDS, +42 B, and their
  // checks in checkEnvelope, +173 B) and segment.updated checked by its segment rather than a
  // flag (+40 B): +255 B, 19,686 B measured, so 19.25 KiB. The management client's change
  // requests (`changeRequests`: eleven calls and proposeFlagUpdate, isChangeConflict, every error
  // body read for a 409's `conflicts` and 403 APPROVAL_REQUIRED's code): +418 B, 20,104 B
  // measured, so 19.75 KiB.
  ['the whole entry', `export * from 'flagwire';`, 19.75 * 1024],
])('keeps the browser bundle of %s under its budget', async (what, contents, budget) => {
  const { gzipped, minified, inputs, text } = await measure(contents);
  console.log(
    `browser bundle, ${what}: ${minified} bytes minified, ${gzipped} bytes gzipped (budget ${budget})`,
  );
  // The built browser entry, not the sources and not the Node build.
  const ours = inputs.filter((input) => !input.includes('node_modules/'));
  expect(ours.filter((input) => input !== '<stdin>')).toEqual([
    expect.stringMatching(/(^|\/)dist\/index\.js$/),
  ]);
  expect(inputs.some((input) => input.startsWith('node:'))).toBe(false);
  // The stream is read by src/client/sse.ts: neither `eventsource` nor `eventsource-parser`.
  expect(inputs.filter((input) => input.includes('node_modules/eventsource'))).toEqual([]);
  // No pattern parser (its group-flags expression): SDKs run the server's programs (§12.6).
  if (contents === EVALUATING_APP) expect(text).not.toContain('imsU');
  expect(gzipped).toBeLessThanOrEqual(budget);
});

it('keeps the browser bundle of FlagwireWebProvider (the OpenFeature web SDK aside) under 14.5 KiB (targeting and usage reports inside)', async () => {
  // 12,069 B measured before usage reports, 14,212 B with them, 14,014 B once they were written
  // for size, 14,301 B with the review's fixes of the reporter (as above): 13.75 -> 14 KiB.
  // Issue 32 (own-property attributes, one decision per segment and prerequisite): 14,421 B, so
  // 14.25 KiB. Issue 33 (as the app above, and PROVIDER_FATAL, one event per failure, errorCode
  // on every error event: +150 B): 14,750 B, so 14.5 KiB.
  const budget = 14.5 * 1024;
  const { gzipped, minified, inputs } = await measure(
    `export { FlagwireWebProvider } from 'flagwire/openfeature/web';`,
    ['@openfeature/web-sdk'],
  );
  console.log(
    `browser bundle, FlagwireWebProvider: ${minified} bytes minified, ${gzipped} bytes gzipped (budget ${budget})`,
  );
  expect(inputs.some((input) => /(^|\/)dist\/openfeature-web\.js$/.test(input))).toBe(true);
  expect(inputs.some((input) => input.startsWith('node:') || input.includes('server-sdk'))).toBe(false);
  expect(gzipped).toBeLessThanOrEqual(budget);
});
