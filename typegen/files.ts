/**
 * The generated file on disk: read (absent is `undefined`), and written whole or not at all
 * (a temporary file beside it, renamed over it), so an editor, a compiler in watch mode or a
 * test watching the folder never sees half of it.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** The file's text, or `undefined` when there is no such file. */
export async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Writes `text` to `path` unless it already holds exactly that; answers whether it wrote. */
export async function writeIfChanged(path: string, text: string): Promise<boolean> {
  if ((await readText(path)) === text) return false;
  await mkdir(dirname(path), { recursive: true });
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeFile(temporary, text, 'utf8');
    await rename(temporary, path);
  } finally {
    await rm(temporary, { force: true });
  }
  return true;
}
