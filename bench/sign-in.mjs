/**
 * Benchmark `sign-in`: what one sign-in's password check costs (`docs/protocol.md` §10.6):
 * scrypt at N=2^17, r=8, p=1 for an unknown e-mail address (checked against a stand-in hash, so
 * it answers no faster) against a wrong and a right password of a real account, in one process,
 * alternating, so the machine's drift falls on each alike. The unknown address should cost what a
 * wrong password costs: a ratio of 1.
 */
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { knob, median, REPO_DIR, table, tempDir } from './lib/util.mjs';

const RIGHT = 'the right password, long enough';
const GUESS = 'a guess at the password';

export async function run() {
  const rounds = knob('FLAGWIRE_BENCH_SIGN_IN_ROUNDS', 7);
  const outfile = join(tempDir('sign-in'), 'password.mjs');
  const entry = join(REPO_DIR, 'server', 'state', 'people', 'password.ts');
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    logLevel: 'silent',
  });
  const { hashPassword, verifyPassword } = await import(pathToFileURL(outfile).href);
  const stored = await hashPassword(RIGHT);
  const ms = async (check) => {
    const start = performance.now();
    await check();
    return performance.now() - start;
  };
  const [unknown, wrong, right, ratios] = [[], [], [], []];
  for (let r = 0; r < rounds; r++) {
    const u = await ms(async () => {
      if (await verifyPassword(GUESS, null)) throw new Error('an unknown address was let in');
    });
    const w = await ms(async () => {
      if (await verifyPassword(GUESS, stored)) throw new Error('a wrong password was let in');
    });
    const ok = await ms(async () => {
      if (!(await verifyPassword(RIGHT, stored))) throw new Error('the right password was refused');
    });
    unknown.push(u);
    wrong.push(w);
    right.push(ok);
    ratios.push(u / w);
  }
  const wrongMs = median(wrong);
  const rows = [
    ['unknown e-mail address (stand-in hash)', median(unknown).toFixed(0), `${median(ratios).toFixed(2)}x`],
    ['wrong password', wrongMs.toFixed(0), '1.00x'],
    ['right password', median(right).toFixed(0), `${(median(right) / wrongMs).toFixed(2)}x`],
  ];
  const text = table(
    `sign-in: one password check (scrypt N=2^17, r=8, p=1), ${rounds} rounds|ms (median)|x wrong password`,
    rows,
  );
  return {
    result: {
      rounds,
      unknownMs: median(unknown),
      wrongMs,
      rightMs: median(right),
      unknownOverWrong: median(ratios),
    },
    text,
  };
}
