/**
 * `.ci/run` prints its closing line "N passed, N failed" on every exit path and names the step
 * that failed: run from a copy in a temporary folder with a stand-in `npm` first on the
 * PATH, which fails the step a case sabotages (and, for `npm test`, writes the results file the
 * real one would). Nothing is installed and no suite runs.
 */
import { execFile } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

/** A stand-in `npm`: fails the script named in FAIL_STEP; `npm test` writes RESULTS as its results file. */
const FAKE_NPM = `#!/usr/bin/env bash
what="$1"; [ "$1" = run ] && what="$2"
if [ "$what" = test ] && [ -n "\${RESULTS:-}" ]; then
  for a in "$@"; do case "$a" in --outputFile=*) printf '%s' "$RESULTS" > "\${a#--outputFile=}";; esac; done
fi
[ "$what" = "\${FAIL_STEP:-}" ] && exit 1
exit 0
`;

async function runCi(env: Record<string, string>): Promise<{ code: number; lines: string[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'flagwire-ci-run-'));
  dirs.push(dir);
  await mkdir(join(dir, '.ci'));
  await mkdir(join(dir, 'bin'));
  await copyFile(new URL('../../../.ci/run', import.meta.url), join(dir, '.ci', 'run'));
  await writeFile(join(dir, 'bin', 'npm'), FAKE_NPM);
  await chmod(join(dir, 'bin', 'npm'), 0o755);
  return new Promise((resolve) => {
    execFile(
      'bash',
      [join(dir, '.ci', 'run')],
      { env: { ...process.env, ...env, PATH: `${join(dir, 'bin')}${delimiter}${process.env.PATH}` } },
      (error, stdout) => {
        const code = error ? ((error as { code?: number }).code ?? 1) : 0;
        resolve({ code, lines: stdout.trim().split('\n') });
      },
    );
  });
}

const passing = JSON.stringify({
  numPassedTests: 12,
  numFailedTests: 0,
  numTotalTests: 12,
  success: true,
  testResults: [],
});

describe('.ci/run', () => {
  it.each(['npm ci', 'lint', 'typecheck'])(
    'a failed "%s" step ends with "0 passed, 1 failed" naming it, exit 1',
    async (name) => {
      const { code, lines } = await runCi({ FAIL_STEP: name === 'npm ci' ? 'ci' : name });
      expect(code).toBe(1);
      expect(lines.slice(-2)).toEqual([`failed step: ${name}`, '0 passed, 1 failed']);
    },
  );

  it('a failed package lint after a passing suite counts one failure and names the step', async () => {
    const { code, lines } = await runCi({ FAIL_STEP: 'lint:package', RESULTS: passing });
    expect(code).toBe(1);
    expect(lines.slice(-2)).toEqual([
      'failed step: package linters (publint, are-the-types-wrong) on the built package',
      '12 passed, 1 failed',
    ]);
  });

  it('a suite with no results file counts as failed, naming npm test', async () => {
    const { code, lines } = await runCi({ FAIL_STEP: 'test' });
    expect(code).toBe(1);
    expect(lines.slice(-2)).toEqual(['failed step: npm test (builds first)', '0 passed, 1 failed']);
  });

  it('a clean run ends with the counts alone, exit 0', async () => {
    const { code, lines } = await runCi({ RESULTS: passing });
    expect(code).toBe(0);
    expect(lines.at(-1)).toBe('12 passed, 0 failed');
    expect(lines.some((l) => l.startsWith('failed step:'))).toBe(false);
  });
});
