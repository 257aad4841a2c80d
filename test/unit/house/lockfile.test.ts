/**
 * The lockfile is complete for every platform: each optional dependency (the per-platform
 * binaries of esbuild, rollup and biome) has its own entry, so `npm ci` on npm 11 accepts it
 * on a clean clone of any OS, and nothing it resolves is fetched from a host named in it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

interface LockEntry {
  version?: string;
  resolved?: string;
  optionalDependencies?: Record<string, string>;
}

interface Lock {
  lockfileVersion: number;
  packages: Record<string, LockEntry>;
}

// The project's, and the runtime matrix's (test/runtimes, installed apart).
describe.each([['package-lock.json'], ['test/runtimes/package-lock.json']])('%s', (file) => {
  const lock = JSON.parse(readFileSync(new URL(`../../../${file}`, import.meta.url), 'utf8')) as Lock;

  it('lists every optional platform binary of every package that has them', () => {
    const missing: string[] = [];
    let platformBinaries = 0;
    for (const [path, entry] of Object.entries(lock.packages)) {
      for (const name of Object.keys(entry.optionalDependencies ?? {})) {
        // npm resolves a dependency next to its parent first, then up the tree.
        const nested = `${path}/node_modules/${name}`;
        const hoisted = `node_modules/${name}`;
        if (lock.packages[nested] ?? lock.packages[hoisted]) platformBinaries++;
        else missing.push(`${name} (of ${path || 'the root'})`);
      }
    }
    expect(missing).toEqual([]);
    expect(platformBinaries).toBeGreaterThan(10);
  });

  it('is a version 3 lockfile with no registry addresses in it', () => {
    expect(lock.lockfileVersion).toBe(3);
    const resolved = Object.values(lock.packages).filter((e) => e.resolved?.startsWith('http'));
    expect(resolved).toEqual([]);
  });
});
