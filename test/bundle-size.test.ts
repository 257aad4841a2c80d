/**
 * The browser bundle of the SDK entry (`flagwire`, with eventsource and the hashing code
 * included), minified and gzipped, stays under its budget, and pulls in no `node:` module.
 */
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { expect, it } from 'vitest';

/** Budget in bytes of the minified + gzipped browser bundle. Raise it only with a reason. */
const BUDGET_GZIP_BYTES = 10 * 1024;

it(`keeps the browser bundle under ${BUDGET_GZIP_BYTES} bytes gzipped`, async () => {
  const result = await build({
    entryPoints: [new URL('../src/index.ts', import.meta.url).pathname],
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
  const gzipped = gzipSync(bytes, { level: 9 }).length;
  const inputs = Object.keys(result.metafile.inputs);
  expect(inputs.some((input) => input.startsWith('node:'))).toBe(false);
  expect(inputs.some((input) => input.includes('node_modules/eventsource/'))).toBe(true);
  console.log(`browser bundle: ${bytes.length} bytes minified, ${gzipped} bytes gzipped`);
  expect(gzipped).toBeLessThan(BUDGET_GZIP_BYTES);
});
