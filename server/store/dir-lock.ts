/**
 * One server per data directory (`docs/protocol.md` §7): a lock file holding the owner's process
 * id. A second server, in this process or another that is alive, is refused; a lock left by a
 * process that died is taken over.
 */
import { randomUUID } from 'node:crypto';
import { open, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/** Data dirs held by this process, so two servers in one process cannot share one either. */
const heldHere = new Set<string>();

export interface DirLock {
  /** Gives the directory back. Idempotent. */
  release(): Promise<void>;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes `dir` through the lock file `name` in it, or throws saying who holds it. */
export async function lockDir(dir: string, name: string): Promise<DirLock> {
  const path = join(dir, name);
  if (heldHere.has(dir)) throw new Error(`store: data dir ${dir} is already in use by this process`);
  try {
    const existing = Number.parseInt(await readFile(path, 'utf8'), 10);
    if (Number.isInteger(existing) && existing !== process.pid && isAlive(existing)) {
      throw new Error(`store: data dir ${dir} is in use by another process (pid ${existing})`);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const temp = `${path}.${randomUUID()}`;
  const handle = await open(temp, 'w');
  await handle.writeFile(String(process.pid));
  await handle.close();
  await rename(temp, path);
  heldHere.add(dir);
  let held = true;
  return {
    async release() {
      if (!held) return;
      held = false;
      heldHere.delete(dir);
      await unlink(path).catch(() => {});
    },
  };
}
