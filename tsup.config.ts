import { resolve } from 'node:path';
import { defineConfig } from 'tsup';

/**
 * Two builds:
 * - the library entry points (`flagwire`, `flagwire/server`, `flagwire/otel`, ...) as ESM + CJS with
 *   per-format declarations (`.d.ts` / `.d.cts`);
 * - the SDK entry again for Node (`dist/index.node.*`, picked by the `node` export condition),
 *   where webhook verification uses `node:crypto` instead of the pure-JS HMAC and a client with
 *   `holdProcess: false` fetches over unref'd `node:http` connections; it shares the
 *   declarations of the first build (same exports);
 * - the `flagwire-server` bin, ESM only, with a shebang;
 * - the `flagwire` bin (`flagwire types`, from `typegen/`), ESM only, with a shebang.
 */
export default defineConfig([
  {
    entry: {
      index: 'src/index.ts',
      server: 'server/index.ts',
      testing: 'src/testing/index.ts',
      openfeature: 'src/openfeature/index.ts',
      'openfeature-web': 'src/openfeature/web/index.ts',
      otel: 'src/otel/index.ts',
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
    entry: { 'index.node': 'src/index.ts' },
    format: ['esm', 'cjs'],
    dts: false,
    sourcemap: true,
    platform: 'node',
    target: 'node20',
    splitting: false,
    esbuildPlugins: [
      {
        name: 'flagwire-node-platform',
        setup(build) {
          build.onResolve({ filter: /\/hmac-web\.js$/ }, (args) => ({
            path: resolve(args.resolveDir, 'hmac-node.ts'),
          }));
          build.onResolve({ filter: /\/unheld-fetch\.js$/ }, (args) => ({
            path: resolve(args.resolveDir, 'unheld-fetch-node.ts'),
          }));
        },
      },
    ],
  },
  {
    entry: { cli: 'server/cli.ts' },
    format: ['esm'],
    dts: false,
    sourcemap: true,
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
  },
  {
    entry: { flagwire: 'typegen/cli.ts' },
    format: ['esm'],
    dts: false,
    sourcemap: true,
    platform: 'node',
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
  },
]);
