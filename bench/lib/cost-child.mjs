/**
 * The measuring process of `cost` (bench/README.md, "Cost"): `node bench/lib/cost-child.mjs
 * CONFIG_FILE` prints one JSON object (progress on stderr). CONFIG (written by `cost.mjs`): `{
 * sdkUrl (the build's testing.js), flags, segments (as the management API answered them), cases:
 * [{ id, key }], users, rounds, passes, passMs, warmupPasses }`. One `createTestClient({ flags,
 * segments })` holds them all; each case is `client.getString(key, user, 'DEFAULT')` over the
 * realistic users, alternating with the baseline `client.isEnabled('roll', user)` (a plain 50 %
 * rollout); every answer is checked first (`off`, reason `FALLTHROUGH`: no rule matched).
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { userOf } from './cost-shapes.mjs';
import { err, flat, pairedRounds, pass } from './measure.mjs';

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const { createTestClient } = await import(config.sdkUrl);
const client = createTestClient({ flags: config.flags, segments: config.segments });

/** The users as an application holds them: strings flat, as parsed from a request. */
const users = Array.from({ length: config.users }, (_, i) => {
  const user = userOf(i);
  for (const [name, value] of Object.entries(user)) if (typeof value === 'string') user[name] = flat(value);
  return user;
});

const DEFAULT = 'DEFAULT';
function stringLoop(key, start, n) {
  let hits = 0;
  const u = users.length;
  for (let i = 0, j = start; i < n; i++) {
    if (client.getString(key, users[j], DEFAULT) === 'off') hits++;
    if (++j === u) j = 0;
  }
  return hits;
}
function plainLoop(start, n) {
  let hits = 0;
  const u = users.length;
  for (let i = 0, j = start; i < n; i++) {
    if (client.isEnabled('roll', users[j])) hits++;
    if (++j === u) j = 0;
  }
  return hits;
}

/** `run(n)` evaluates the next `n` users, from where the last call ended. */
function subject(evaluate) {
  let cursor = 0;
  return {
    run(n) {
      const hits = evaluate(cursor, n);
      cursor = (cursor + n) % users.length;
      return hits;
    },
  };
}

/** Every user gets `off` by the fallthrough (no rule matched, no error), or the run fails. */
function check({ id, key }) {
  for (const user of users) {
    const d = client.getDetail(key, user, DEFAULT);
    if (d.value !== 'off' || d.reason !== 'FALLTHROUGH')
      throw new Error(`${id} (${key}): user ${user.key} got ${JSON.stringify(d)}`);
  }
  return users.length;
}

const cases = config.cases.map((c) => ({
  ...c,
  checked: check(c),
  ...subject((s, n) => stringLoop(c.key, s, n)),
}));
const base = { id: 'baseline', ...subject(plainLoop) };
err(`  cost: ${cases.length} cases, answers checked for ${users.length} users`);

/** Evaluations in a pass of about `ms` (wall time), from passes of growing size. */
function passSize(c, ms) {
  for (let n = 1; ; n *= 4) {
    const took = (pass(c.run, n).wallNs * n) / 1e6;
    if (took >= ms / 4 || n >= 1 << 26) return Math.max(1, Math.round((n * ms) / Math.max(took, 1e-3)));
  }
}

const t0 = performance.now();
for (const c of [base, ...cases]) c.n = passSize(c, config.passMs);
for (let p = 0; p < config.warmupPasses; p++) for (const c of [base, ...cases]) pass(c.run, c.n);
for (const c of [base, ...cases]) c.n = passSize(c, config.passMs);
err(`  cost: warmed up in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

const per = new Map(cases.map((c) => [c, pairedRounds()]));
for (let r = 0; r < config.rounds; r++) {
  const line = cases.map((_, k) => {
    const c = cases[(k + r) % cases.length];
    const { ns, baseNs } = per.get(c).round(c, base, config.passes, r);
    return `${c.id} ${ns.toFixed(0)}/${baseNs.toFixed(0)}`;
  });
  err(`  round ${r + 1}/${config.rounds} (CPU ns/eval, case/baseline): ${line.join(', ')}`);
}
const out = cases.map(({ id, key, checked, n }) => ({
  id,
  key,
  checked,
  evalsPerPass: n,
  ...per.get(cases.find((c) => c.id === id)).summary(),
}));
process.stdout.write(JSON.stringify({ node: process.version, users: users.length, cases: out }));
