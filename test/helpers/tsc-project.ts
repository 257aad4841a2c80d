/**
 * A user's TypeScript project in a temporary folder, compiled with `tsc --noEmit` against the
 * built package as an install would give it: `node_modules/flagwire` links to this checkout, so
 * `flagwire`, `flagwire/testing` and `flagwire/openfeature` resolve through the package's
 * `exports` to `dist/*.d.ts` (or `.d.cts` in a CommonJS project). Answers tsc's diagnostics.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { onTestFinished } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/** Packages the project may import besides flagwire, linked from this checkout's node_modules. */
const LINKED = ['@openfeature', 'vitest', 'expect-type', '@types'];

export interface Diagnostic {
  file: string;
  line: number;
  code: number;
  message: string;
}

export interface ProjectOptions {
  /** `module` of the package.json: how its `.ts` files are read. */
  type: 'module' | 'commonjs';
  /** `moduleResolution` (`module` follows: Node16 or ESNext). */
  resolution: 'node16' | 'bundler';
  /** Files by their path in the project. */
  files: Record<string, string>;
  /** Check the package's declaration files too (off where vitest's are in the program). */
  skipLibCheck?: boolean;
}

export interface Compiled {
  diagnostics: Diagnostic[];
  /** Every file in the program (`--listFiles`). */
  files: string[];
  output: string;
}

/** Writes the project, compiles it and answers what tsc said. The folder is removed after the test. */
export async function compileProject(options: ProjectOptions): Promise<Compiled> {
  const dir = await mkdtemp(join(tmpdir(), 'flagwire-tsc-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  await mkdir(join(dir, 'node_modules'));
  await symlink(ROOT, join(dir, 'node_modules', 'flagwire'), 'dir');
  for (const name of LINKED)
    await symlink(join(ROOT, 'node_modules', name), join(dir, 'node_modules', name), 'dir');
  await writeFile(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'app', private: true, type: options.type }),
  );
  const tsconfig = {
    compilerOptions: {
      target: 'ES2022',
      module: options.resolution === 'node16' ? 'Node16' : 'ESNext',
      moduleResolution: options.resolution,
      lib: ['ES2023', 'DOM'],
      types: ['node'],
      strict: true,
      noEmit: true,
      skipLibCheck: options.skipLibCheck ?? false,
    },
    include: ['**/*.ts'],
  };
  await writeFile(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
  for (const [path, text] of Object.entries(options.files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  const output = await new Promise<string>((resolve) =>
    execFile(
      process.execPath,
      [TSC, '-p', dir, '--pretty', 'false', '--listFiles'],
      { cwd: dir, maxBuffer: 64 * 1024 * 1024 },
      (_error, stdout, stderr) => resolve(`${stdout}${stderr}`),
    ),
  );
  const diagnostics: Diagnostic[] = [];
  const files: string[] = [];
  for (const line of output.split('\n')) {
    const match = /^(.+?)\((\d+),\d+\): error TS(\d+): (.*)$/.exec(line);
    if (match)
      diagnostics.push({
        file: match[1]!,
        line: Number(match[2]),
        code: Number(match[3]),
        message: match[4]!,
      });
    else if (line.startsWith('/')) files.push(line);
  }
  return { diagnostics, files, output };
}
