/**
 * Browser bundles of the SDK entry (`flagwire`), minified and gzipped, stay under their
 * budgets and pull in no `node:` module: what an app that only evaluates flags ships
 * (eventsource and the hashing code included: 8 KiB, of which eventsource and
 * eventsource-parser take about 3.4 KiB), and the whole entry (webhook verification with its
 * pure-JS SHA-256 included).
 */
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { expect, it } from 'vitest';

const entry = new URL('../src/index.ts', import.meta.url).pathname;

async function measure(
  contents: string,
  external: string[] = [],
): Promise<{ gzipped: number; minified: number; inputs: string[] }> {
  const result = await build({
    external,
    stdin: { contents, resolveDir: new URL('.', import.meta.url).pathname, loader: 'ts' },
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
  };
}

it.each([
  [
    'an app that evaluates flags (createClient)',
    `export { createClient } from ${JSON.stringify(entry)};`,
    8 * 1024,
  ],
  ['the whole entry', `export * from ${JSON.stringify(entry)};`, 16 * 1024],
])('keeps the browser bundle of %s under its budget', async (what, contents, budget) => {
  const { gzipped, minified, inputs } = await measure(contents);
  console.log(
    `browser bundle, ${what}: ${minified} bytes minified, ${gzipped} bytes gzipped (budget ${budget})`,
  );
  expect(inputs.some((input) => input.startsWith('node:'))).toBe(false);
  expect(inputs.some((input) => input.includes('node_modules/eventsource/'))).toBe(true);
  expect(gzipped).toBeLessThan(budget);
});

it('keeps the browser bundle of FlagwireWebProvider (the OpenFeature web SDK aside) under 12 KiB', async () => {
  const web = new URL('../src/openfeature/web/index.ts', import.meta.url).pathname;
  const { gzipped, minified, inputs } = await measure(
    `export { FlagwireWebProvider } from ${JSON.stringify(web)};`,
    ['@openfeature/web-sdk'],
  );
  console.log(
    `browser bundle, FlagwireWebProvider: ${minified} bytes minified, ${gzipped} bytes gzipped (budget 12288)`,
  );
  expect(inputs.some((input) => input.startsWith('node:') || input.includes('server-sdk'))).toBe(false);
  expect(gzipped).toBeLessThan(12 * 1024);
});
