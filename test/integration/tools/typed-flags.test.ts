/**
 * Typed flags at compile time, as users compile them: the fixture project
 * `test/fixtures/typed-flags/` with a file `flagwire types` generated (the golden files that
 * test/integration/tools/typegen.test.ts holds to the generator's output), compiled with `tsc --noEmit` against
 * the built package (ESM with node16 and bundler resolution, CommonJS with node16 against the
 * `.d.cts` files). Known keys compile; misspelt keys and a deleted flag's key fail with the
 * expected diagnostics; the type-level tests (`expectTypeOf`, `@ts-expect-error`) hold. Without
 * the augmentation every key stays accepted: test/integration/sdk/public-api.types.test.ts and the examples.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compileProject } from '../../helpers/tsc-project.js';
import { TYPED_FLAGS } from '../../helpers/typegen.js';

/** A built declaration file of this package, as tsc lists it. */
const dist = (name: string) => fileURLToPath(new URL(`../../../dist/${name}`, import.meta.url));

const fixture = (path: string) => readFileSync(join(TYPED_FLAGS, path), 'utf8');
const golden = (name: string) => fixture(`golden/${name}`);

/** The line of `text` that contains `needle` (1-based). */
const lineOf = (text: string, needle: string) =>
  text.split('\n').findIndex((line) => line.includes(needle)) + 1;

describe('an ESM app with the generated flagwire-flags.d.ts', () => {
  it.each(['node16', 'bundler'] as const)(
    'compiles known keys and holds the type-level tests (%s)',
    async (resolution) => {
      const { diagnostics, files, output } = await compileProject({
        type: 'module',
        resolution,
        skipLibCheck: true,
        files: {
          'app/flagwire-flags.d.ts': golden('environment.d.ts'),
          'app/known.ts': fixture('app/known.ts'),
          'app/types.ts': fixture('app/types.ts'),
        },
      });
      expect(diagnostics, output).toEqual([]);
      // The augmentation reached the package's own declarations (not a copy of them).
      expect(files).toContain(dist('index.d.ts'));
      expect(files).toContain(dist('testing.d.ts'));
      expect(files).toContain(dist('openfeature.d.ts'));
      expect(files).not.toContain(dist('index.d.cts'));
    },
  );

  it('compiles the generated .ts file too (FLAG_KEYS as a value)', async () => {
    const { diagnostics, output } = await compileProject({
      type: 'module',
      resolution: 'node16',
      files: { 'app/flagwire-flags.ts': golden('environment.ts'), 'app/known.ts': fixture('app/known.ts') },
    });
    expect(diagnostics, output).toEqual([]);
  });

  it('fails on misspelt keys with the expected diagnostics', async () => {
    const source = fixture('app/misspelt.ts');
    const { diagnostics } = await compileProject({
      type: 'module',
      resolution: 'node16',
      files: { 'app/flagwire-flags.d.ts': golden('environment.d.ts'), 'app/misspelt.ts': source },
    });
    expect(diagnostics).toEqual([
      {
        file: 'app/misspelt.ts',
        line: lineOf(source, "'new-chekout'"),
        code: 2345,
        message: `Argument of type '"new-chekout"' is not assignable to parameter of type '"new-checkout" | "search-rollout"'.`,
      },
      {
        file: 'app/misspelt.ts',
        line: lineOf(source, "'themes'"),
        code: 2345,
        message: `Argument of type '"themes"' is not assignable to parameter of type '"theme"'.`,
      },
      {
        file: 'app/misspelt.ts',
        line: lineOf(source, "'change:new-chekout'"),
        code: 2345,
        message: `Argument of type '"change:new-chekout"' is not assignable to parameter of type 'ClientEventName'.`,
      },
    ]);
  });

  it("fails on a deleted flag's key once the file is generated again", async () => {
    const source = fixture('app/known.ts');
    const { diagnostics } = await compileProject({
      type: 'module',
      resolution: 'node16',
      files: { 'app/flagwire-flags.d.ts': golden('environment-deleted.d.ts'), 'app/known.ts': source },
    });
    expect(diagnostics).toEqual([
      {
        file: 'app/known.ts',
        line: lineOf(source, "'search-rollout'"),
        code: 2345,
        message: `Argument of type '"search-rollout"' is not assignable to parameter of type '"new-checkout"'.`,
      },
    ]);
  });
});

describe('a CommonJS app', () => {
  it('is typed by the same augmentation through the .d.cts files', async () => {
    const { diagnostics, files, output } = await compileProject({
      type: 'commonjs',
      resolution: 'node16',
      files: { 'flagwire-flags.d.ts': golden('environment.d.ts'), 'known.ts': fixture('cjs/known.ts') },
    });
    expect(diagnostics, output).toEqual([]);
    expect(files).toContain(dist('index.d.cts'));
    expect(files).toContain(dist('testing.d.cts'));
    expect(files).not.toContain(dist('index.d.ts'));
  });
});
