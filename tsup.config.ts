import { defineConfig } from 'tsup';

/**
 * Two builds:
 * - the library entry points (`flagwire`, `flagwire/server`) as ESM + CJS with
 *   per-format declarations (`.d.ts` / `.d.cts`);
 * - the `flagwire-server` bin, ESM only, with a shebang.
 */
export default defineConfig([
  {
    entry: {
      index: 'src/index.ts',
      server: 'server/index.ts',
    },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'node20',
    splitting: false,
    treeshake: true,
  },
  {
    entry: { cli: 'server/cli.ts' },
    format: ['esm'],
    dts: false,
    sourcemap: true,
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
  },
]);
