/**
 * Which flagwire build the SDK benchmarks load: the directory in `FLAGWIRE_DIST` (absolute,
 * or relative to the repository), else `dist/`. Both layouts are understood:
 *
 * - `npm run build` (tsup.config.ts): `DIR/index.js` and `DIR/server.js`;
 * - a private build `npx tsup src/index.ts server/index.ts --no-config --format esm --out-dir DIR`:
 *   `DIR/src/index.js` and `DIR/server/index.js`.
 *
 * A build outside the repository cannot resolve the SDK's dependencies (`eventsource`), so
 * {@link ensureDependencies} links `DIR/node_modules` to the repository's `node_modules`
 * when the directory has none.
 */
import { existsSync, lstatSync, symlinkSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_DIR } from '../lib/util.mjs';

export function distDir() {
  const given = process.env.FLAGWIRE_DIST;
  if (!given) return join(REPO_DIR, 'dist');
  return isAbsolute(given) ? given : resolve(REPO_DIR, given);
}

function pick(dir, candidates, what) {
  for (const c of candidates) {
    const path = join(dir, c);
    if (existsSync(path)) return { path, url: pathToFileURL(path).href };
  }
  throw new Error(
    `${what} not found in ${dir} (looked for ${candidates.join(', ')}): build it, e.g. ` +
      '`npx tsup src/index.ts server/index.ts --no-config --format esm --out-dir /tmp/flagwire-sdkbench-dist` ' +
      'and set FLAGWIRE_DIST=/tmp/flagwire-sdkbench-dist',
  );
}

/** `{ dir, sdk: {path, url}, server: {path, url} }` of the build under test. */
export function distModules() {
  const dir = distDir();
  return {
    dir,
    sdk: pick(dir, ['index.js', 'src/index.js'], 'the SDK entry (flagwire)'),
    server: pick(dir, ['server.js', 'server/index.js'], 'the server entry (flagwire/server)'),
  };
}

/** Links `DIR/node_modules` to the repository's when the build lies outside the repository. */
export function ensureDependencies(dir = distDir()) {
  const rel = relative(REPO_DIR, dir);
  const inside = rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  if (inside) return undefined;
  const link = join(dir, 'node_modules');
  let present = false;
  try {
    lstatSync(link);
    present = true;
  } catch {}
  if (!present) symlinkSync(join(REPO_DIR, 'node_modules'), link, 'dir');
  return link;
}
