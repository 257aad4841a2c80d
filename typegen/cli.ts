/**
 * `flagwire`: the SDK's command line. `flagwire types` writes the `FlagwireFlags` augmentation
 * of a server's flags, so that a misspelt or deleted flag key fails the build. Exit codes: 0
 * done (or up to date), 1 `--check` found the file out of date, 2 a usage error or a server that
 * could not be read (refused, no answer, a non-2xx after the retries, an answer that is not
 * flags), in every mode: a CI check that could not check fails. Should the process ever run out
 * of work before the command settled, it exits 2 too, never 0 in silence.
 */
import { parseArgs } from 'node:util';
import { isFlagwireError } from '../src/index.js';
import { writeIfChanged } from './files.js';
import { check, flagCount, generate, watch } from './generate.js';
import type { Credentials } from './sources.js';

const USAGE = `Usage: flagwire types --out FILE --base-url URL (--api-key KEY | --admin-token TOKEN --project KEY) [--check | --watch]

Writes the FlagwireFlags augmentation of a server's flags (and FLAG_KEYS), so that the SDK
accepts only their keys and answers each flag's own type.

  --out FILE             the file to write: FILE.d.ts declares FLAG_KEYS, FILE.ts makes it a value
  --base-url URL         the management base URL, e.g. http://127.0.0.1:8787/api/v1
  --api-key KEY          an API key of the environment; read-only is enough
                         (default: FLAGWIRE_API_KEY)
  --admin-token TOKEN    instead of a key: the server's admin token, to merge every environment
                         of --project (default: FLAGWIRE_ADMIN_TOKEN)
  --project KEY          with --admin-token: the project
  --check                write nothing; exit 1 with a diff when FILE is out of date (for CI)
  --watch                keep FILE up to date as flags change (with --api-key)
  -h, --help             show this help

Exit codes: 0 written or up to date, 1 out of date (--check), 2 a usage error or a failed read.`;

class UsageError extends Error {}

interface Command {
  credentials: Credentials;
  out: string;
  mode: 'write' | 'check' | 'watch';
}

function parse(argv: string[]): Command | undefined {
  const [command, ...rest] = argv;
  if (command === undefined || command === '-h' || command === '--help') return undefined;
  if (command !== 'types') throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  const { values } = parseArgs({
    args: rest,
    strict: true,
    allowPositionals: false,
    options: {
      out: { type: 'string' },
      'base-url': { type: 'string' },
      'api-key': { type: 'string' },
      'admin-token': { type: 'string' },
      project: { type: 'string' },
      check: { type: 'boolean' },
      watch: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return undefined;
  const { out, project } = values;
  const baseUrl = values['base-url'];
  if (!out) throw new UsageError('--out FILE is required');
  if (!baseUrl) throw new UsageError('--base-url URL is required');
  if (values.check && values.watch) throw new UsageError('give either --check or --watch, not both');
  const mode = values.check ? 'check' : values.watch ? 'watch' : 'write';
  let credentials: Credentials;
  if (project !== undefined || values['admin-token'] !== undefined) {
    if (values['api-key'] !== undefined)
      throw new UsageError('give either --api-key or --admin-token, not both');
    const adminToken = values['admin-token'] ?? (process.env.FLAGWIRE_ADMIN_TOKEN || undefined);
    if (!adminToken) throw new UsageError('--project needs --admin-token (or FLAGWIRE_ADMIN_TOKEN)');
    if (!project) throw new UsageError('--admin-token needs --project KEY');
    if (mode === 'watch') throw new UsageError("--watch follows one environment's stream: give --api-key");
    credentials = { baseUrl, adminToken, project };
  } else {
    const apiKey = values['api-key'] ?? (process.env.FLAGWIRE_API_KEY || undefined);
    if (!apiKey)
      throw new UsageError('give --api-key KEY (or FLAGWIRE_API_KEY), or --admin-token and --project');
    credentials = { baseUrl, apiKey };
  }
  return { credentials, out, mode };
}

const print = (stream: NodeJS.WriteStream, text: string) =>
  stream.write(text.endsWith('\n') ? text : `${text}\n`);

async function run(command: Command): Promise<number> {
  const options = { credentials: command.credentials, out: command.out };
  if (command.mode === 'check') {
    const { upToDate, message } = await check(options);
    print(upToDate ? process.stdout : process.stderr, `flagwire types: ${message}`);
    return upToDate ? 0 : 1;
  }
  if (command.mode === 'watch') {
    const controller = new AbortController();
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => controller.abort());
    if (!('apiKey' in command.credentials)) throw new UsageError('--watch needs --api-key');
    await watch({
      ...options,
      credentials: command.credentials,
      log: (line) => print(process.stdout, `flagwire types: ${line}`),
      signal: controller.signal,
    });
    return 0;
  }
  const { text, keys } = await generate(options);
  const wrote = await writeIfChanged(command.out, text);
  print(
    process.stdout,
    `flagwire types: ${wrote ? 'wrote' : 'unchanged:'} ${command.out} (${flagCount(keys)})`,
  );
  if (keys === 0) print(process.stderr, 'flagwire types: warning: no flags, so every key stays accepted');
  return 0;
}

/**
 * `error`'s message, with the reason underneath it when it was caught from elsewhere (`fetch
 * failed` is `connect ECONNREFUSED 127.0.0.1:8787`), and its code.
 */
function describe(error: unknown): string {
  let text = (error as Error)?.message ?? String(error);
  let cause = (error as Error)?.cause;
  for (let depth = 0; cause instanceof Error && depth < 3; depth++, cause = cause.cause) {
    if (!text.includes(cause.message)) text += `: ${cause.message}`;
  }
  return isFlagwireError(error) ? `${text} (${error.code})` : text;
}

async function main(): Promise<void> {
  let command: Command | undefined;
  try {
    command = parse(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`flagwire: ${(error as Error).message}\n\n${USAGE}\n`);
    process.exit(2);
  }
  if (!command) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  let settled = false;
  // Nothing left to wait for, and no answer: something let go of the process. Fail, loudly.
  process.once('beforeExit', () => {
    if (settled) return;
    process.stderr.write('flagwire types: stopped before the server answered\n');
    process.exitCode = 2;
  });
  try {
    process.exitCode = await run(command);
  } catch (error) {
    process.stderr.write(`flagwire types: ${describe(error)}\n`);
    process.exitCode = 2;
  } finally {
    settled = true;
  }
}

void main();
