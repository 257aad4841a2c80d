// `npm run build` runs this after tsup: bundles the dashboard (dashboard/) for the
// browser into dist/dashboard/ (app.js, app.css, index.html, favicon.svg), minified, with
// nothing loaded from another host. The server serves that folder (docs/protocol.md §10.1).
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

const ui = 'dashboard';
const out = 'dist/dashboard';
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
await build({
  entryPoints: { app: `${ui}/main.tsx` },
  bundle: true,
  minify: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2020',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outdir: out,
  logLevel: 'warning',
  legalComments: 'none',
});
copyFileSync(`${ui}/index.html`, `${out}/index.html`);
copyFileSync(`${ui}/favicon.svg`, `${out}/favicon.svg`);
