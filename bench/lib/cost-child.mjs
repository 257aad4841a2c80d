/** The measuring process of `cost`: each case's `getString` against `isEnabled('roll', user)`. */
import { readFileSync } from 'node:fs';
import { userOf } from './cost-shapes.mjs';
import * as m from './measure.mjs';

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const { createTestClient } = await import(config.sdkUrl);
const client = createTestClient({ flags: config.flags, segments: config.segments });
/** The users as an application holds them: strings flat, as parsed from a request. */
const users = Array.from({ length: config.users }, (_, i) => {
  const user = userOf(i);
  for (const [name, value] of Object.entries(user)) if (typeof value === 'string') user[name] = m.flat(value);
  return user;
});
/** Every user gets `off` by the fallthrough (no rule matched, no error), or the run fails. */
function check({ id, key }) {
  for (const user of users) {
    const d = client.getDetail(key, user, m.DEFAULT);
    if (d.value !== 'off' || d.reason !== 'FALLTHROUGH')
      throw new Error(`${id} (${key}): user ${user.key} got ${JSON.stringify(d)}`);
  }
  return users.length;
}
const cases = config.cases.map((c) => {
  const evaluate = (list, start, n) => m.getStringLoop(client, c.key, 'off', list, start, n);
  return { ...c, checked: check(c), ...m.subject(evaluate, users) };
});
const plain = (list, start, n) => m.isEnabledLoop(client, 'roll', list, start, n);
const base = { id: 'baseline', ...m.subject(plain, users) };
m.err(`  cost: ${cases.length} cases, answers checked for ${users.length} users`);
m.warmUp([base, ...cases], config.passMs, config.warmupPasses, 'cost');
const summary = m.timeRounds(cases, () => base, config);
const out = cases.map((c) => {
  const { id, key, checked, n } = c;
  return { id, key, checked, evalsPerPass: n, ...summary(c) };
});
m.printResult({ users: users.length, cases: out });
