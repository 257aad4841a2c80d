/**
 * The built declarations as users compile against them: a TypeScript file importing every
 * entry point type-checks with `moduleResolution` node16 and bundler (the package resolves
 * itself by name, through its `exports`).
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const dir = fileURLToPath(new URL('../../fixtures/ts-consumer/', import.meta.url));

it.each(['node16', 'bundler'])('type-checks a consumer with moduleResolution %s', (mode) => {
  const run = () =>
    execFileSync(process.execPath, [tsc, '-p', `${dir}tsconfig.${mode}.json`], {
      encoding: 'utf8',
      stdio: 'pipe',
    });
  expect(run).not.toThrow();
});
