/**
 * `flagwire types` as functions: generate the file once, check it, or keep it up to date as
 * flags change. `--watch` follows the environment with the SDK client itself (which asks for
 * the targeting capability, so string, number and json flags are seen, with their variants): every
 * change it applies makes the flags be read again, and the file is rewritten when it differs.
 */
import { createClient } from '../src/index.js';
import { unifiedDiff } from './diff.js';
import { readText, writeIfChanged } from './files.js';
import { render } from './render.js';
import { type Credentials, readSource } from './sources.js';

export interface TypesOptions {
  credentials: Credentials;
  /** Where the file goes; `.ts`, `.mts` or `.cts` make `FLAG_KEYS` a value, anything else declares it. */
  out: string;
}

/** `1 flag`, `2 flags`. */
export const flagCount = (n: number): string => `${n} flag${n === 1 ? '' : 's'}`;

/** Whether `out` is a source file (`FLAG_KEYS` as a value) rather than a declaration file. */
export const isRuntimeFile = (out: string): boolean => /(?<!\.d)\.[cm]?ts$/.test(out);

/** The file's text as the server's flags make it now, and how many flags it names. */
export async function generate(
  options: TypesOptions,
  signal?: AbortSignal,
): Promise<{ text: string; keys: number }> {
  const source = await readSource(options.credentials, signal);
  const text = render(source, { runtime: isRuntimeFile(options.out) });
  const keys = new Set(source.environments.flatMap((env) => env.flags.map((flag) => flag.key))).size;
  return { text, keys };
}

/** Whether the file on disk is what would be written; a diff-like message when it is not. */
export async function check(options: TypesOptions): Promise<{ upToDate: boolean; message: string }> {
  const { text } = await generate(options);
  const current = await readText(options.out);
  if (current === undefined)
    return { upToDate: false, message: `${options.out} does not exist: run without --check to write it\n` };
  const diff = unifiedDiff(current, text, `${options.out} (on disk)`, `${options.out} (from the server)`);
  if (diff.text === '') return { upToDate: true, message: `${options.out} is up to date\n` };
  const lines = (n: number) => `${n} line${n === 1 ? '' : 's'}`;
  const summary = `${options.out} is out of date (${lines(diff.removed)} to remove, ${lines(diff.added)} to add): run without --check to update it`;
  return { upToDate: false, message: `${summary}\n${diff.text}` };
}

export interface WatchOptions extends TypesOptions {
  credentials: { baseUrl: string; apiKey: string };
  /** Where progress and problems go, a line at a time. */
  log: (line: string) => void;
  /** Ends the watch: the client is closed and the returned promise resolves. */
  signal: AbortSignal;
}

/**
 * Writes the file, then again after every change the SDK client applies (changes that arrive
 * while the flags are being read make them be read once more). Rejects when the first read fails
 * (the server refused, unreachable, or not answering flags: nothing was watched yet) or the
 * client cannot start (the key refused); a later failed read is logged and retried at the next
 * change.
 */
export async function watch(options: WatchOptions): Promise<void> {
  const { credentials, out, log, signal } = options;
  let first: { text: string; keys: number };
  try {
    first = await generate(options, signal);
  } catch (error) {
    if (signal.aborted) return;
    throw error;
  }
  if (await writeIfChanged(out, first.text)) log(`wrote ${out} (${flagCount(first.keys)})`);
  const client = createClient({
    ...credentials,
    logger: { warn: (m) => log(`warning: ${m}`), error: (m) => log(`error: ${m}`) },
  });
  let running = false;
  let again = false;
  const update = async () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    do {
      again = false;
      try {
        const { text, keys } = await generate(options, signal);
        if (await writeIfChanged(out, text)) log(`wrote ${out} (${flagCount(keys)})`);
      } catch (error) {
        if (!signal.aborted) log(`error: ${(error as Error).message}`);
      }
    } while (again && !signal.aborted);
    running = false;
  };
  const stopped = new Promise<void>((resolve) =>
    signal.addEventListener('abort', () => resolve(), { once: true }),
  );
  client.on('change', () => void update());
  try {
    await client.ready({ signal });
  } catch (error) {
    await client.close();
    if (signal.aborted) return;
    throw error;
  }
  await update();
  log(`watching for flag changes (Ctrl-C to stop)`);
  await stopped;
  await client.close();
}
