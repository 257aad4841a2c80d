/**
 * A folder built once and then reused, by the runs of one user at the same time or later: the
 * runtime matrix's installation (test/helpers/runtimes.ts) and the copy of the Postgres binaries
 * (test/helpers/postgres-launcher.mjs). Plain JavaScript, so that bench (node, no TypeScript
 * loader) imports it through the launcher; its types are in built-once.d.mts.
 *
 * The folder is built in a temporary sibling, marked complete (`MARKER`, written last) and renamed
 * into place, so that no run ever sees half of it; a run whose rename loses uses the winner's. A
 * folder at that place that another user made, or that others may write, is never trusted.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, lstat, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Written last into a finished folder. */
export const MARKER = '.flagwire-complete';

/**
 * `complete` (marked, and `isComplete` agrees), `incomplete` (damaged since, a temp cleaner say)
 * or `absent`; throws for a folder this user did not make or others may write.
 */
async function stateOf(dir, isComplete) {
  let st;
  try {
    st = await lstat(dir);
  } catch {
    return 'absent';
  }
  const mine = typeof process.getuid !== 'function' || st.uid === process.getuid();
  if (!st.isDirectory() || !mine || (st.mode & 0o022) !== 0) {
    throw new Error(
      `${dir} is not a folder that this user made and only it can write, so it is not trusted. Fix: delete it.`,
    );
  }
  return existsSync(join(dir, MARKER)) && isComplete(dir) ? 'complete' : 'incomplete';
}

/**
 * Makes sure `dir` holds a finished build: reuses it, or builds it with `fill(building)` into a
 * new sibling (mode 0755), writes `marker` (text) as its `MARKER` and renames it into place.
 * `isComplete(dir)` checks more than the marker. Answers whether this call built it.
 */
export async function buildOnce(dir, fill, { marker = '', isComplete = () => true } = {}) {
  const state = await stateOf(dir, isComplete);
  if (state === 'complete') return false;
  if (state === 'incomplete') {
    // Only a finished folder is ever renamed into place: this one was damaged since. Move it
    // aside (one run wins the rename), then build anew.
    const aside = `${dir}.stale-${randomBytes(4).toString('hex')}`;
    await rename(dir, aside).then(
      () => rm(aside, { recursive: true, force: true }),
      () => {},
    );
  }
  const building = await mkdtemp(join(dirname(dir), `.${basename(dir)}.building-`));
  try {
    await chmod(building, 0o755);
    await fill(building);
    await writeFile(join(building, MARKER), marker, { mode: 0o644 });
    try {
      await rename(building, dir);
    } catch (error) {
      // Another run renamed its folder into place first: use that one.
      if (!['ENOTEMPTY', 'EEXIST', 'EPERM', 'EACCES', 'EBUSY'].includes(error?.code)) throw error;
      if ((await stateOf(dir, isComplete)) !== 'complete') throw error;
      return false;
    }
  } finally {
    await rm(building, { recursive: true, force: true });
  }
  if ((await stateOf(dir, isComplete)) !== 'complete')
    throw new Error(`${dir} is incomplete after it was built`);
  return true;
}
