/** The `targeting` peers, GrowthBook and Unleash, offline, each given the cases in its own form. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CASES, SEGMENT, SPLIT } from './targeting-cases.mjs';
import { REPO_DIR } from './util.mjs';

const versionOf = (name) =>
  JSON.parse(readFileSync(join(REPO_DIR, 'node_modules', name, 'package.json'), 'utf8')).version;
const escapeRegex = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const segmentNote = (how) => ({ 'segment-in': how, 'segment-out': how });
/** Every case of `CASES` as `split(key)` (the split) or `on(key)` (the others), with its note. */
const casesOf = (notes, split, on) =>
  Object.fromEntries(
    CASES.map(({ id }) => [id, { ...(id === 'split-3' ? split : on)(`bench.${id}`), note: notes[id] }]),
  );
function growthbookOnLoop(client, key, users, start, n) {
  let hits = 0;
  const u = users.length;
  for (let i = 0, j = start; i < n; i++) {
    if (client.isOn(key, users[j])) hits++;
    if (++j === u) j = 0;
  }
  return hits;
}
function growthbookValueLoop(client, key, want, users, start, n) {
  let hits = 0;
  const u = users.length;
  for (let i = 0, j = start; i < n; i++) {
    if (client.getFeatureValue(key, null, users[j]) === want) hits++;
    if (++j === u) j = 0;
  }
  return hits;
}
function unleashOnLoop(unleash, name, users, start, n) {
  let hits = 0;
  const u = users.length;
  for (let i = 0, j = start; i < n; i++) {
    if (unleash.isEnabled(name, users[j])) hits++;
    if (++j === u) j = 0;
  }
  return hits;
}
function unleashVariantLoop(unleash, name, want, users, start, n) {
  let hits = 0;
  const u = users.length;
  for (let i = 0, j = start; i < n; i++) {
    if (unleash.getVariant(name, users[j]).name === want) hits++;
    if (++j === u) j = 0;
  }
  return hits;
}
/** Operators of one operand (numbers, semver, a pattern): [GrowthBook's, Unleash's]. */
const COMPARE = {
  matches: ['$regex', 'REGEX'],
  lessThan: ['$lt', 'NUM_LT'],
  lessThanOrEqual: ['$lte', 'NUM_LTE'],
  greaterThan: ['$gt', 'NUM_GT'],
  greaterThanOrEqual: ['$gte', 'NUM_GTE'],
  semVerLessThan: ['$vlt', 'SEMVER_LT'],
  semVerLessThanOrEqual: ['$vlte', 'SEMVER_LTE'],
  semVerGreaterThan: ['$vgt', 'SEMVER_GT'],
  semVerGreaterThanOrEqual: ['$vgte', 'SEMVER_GTE'],
};
/** String operators of a list: [GrowthBook's `$regex` of the alternatives, Unleash's]. */
const STRINGS = {
  startsWith: [(any) => `^${any}`, 'STR_STARTS_WITH'],
  endsWith: [(any) => `${any}$`, 'STR_ENDS_WITH'],
  contains: [(any) => any, 'STR_CONTAINS'],
};
const only = (op, values) => {
  if (values.length !== 1) throw new Error(`${op} takes one value`);
  return values[0];
};
const untranslatable = (peer, op, negate) => {
  if (!(op === 'in' || (!negate && (COMPARE[op] || STRINGS[op]))))
    throw new Error(`${peer}: no translation of ${op}`);
};
/** A Flagwire clause as a GrowthBook condition (strings by `$regex`: how GrowthBook tests them). */
function growthbookClause({ attribute, op, values, negate }) {
  untranslatable('growthbook', op, negate);
  const any = `(?:${values.map((x) => escapeRegex(String(x))).join('|')})`;
  const condition =
    op === 'in'
      ? { [negate ? '$nin' : '$in']: values }
      : STRINGS[op]
        ? { $regex: STRINGS[op][0](any) }
        : { [COMPARE[op][0]]: only(op, values) };
  return { [attribute === 'key' ? 'id' : attribute]: condition };
}
export async function growthbook(members) {
  const { GrowthBookClient } = await import('@growthbook/growthbook');
  const features = {};
  for (const c of CASES) {
    let rule;
    if (c.id === 'rollout') rule = { id: 'r', force: true, coverage: 0.5, hashAttribute: 'id' };
    else if (c.id === 'split-3') {
      const weights = SPLIT.map((s) => s.weight / 100_000);
      rule = { id: 'r', key: 'bench.split-3', variations: ['a', 'b', 'c'], weights, hashAttribute: 'id' };
    } else {
      const clauses = c.segment ? [{ id: { $inGroup: SEGMENT } }] : c.clauses.map(growthbookClause);
      rule = { id: 'r', condition: clauses.length === 1 ? clauses[0] : { $and: clauses }, force: true };
    }
    features[`bench.${c.id}`] = { defaultValue: c.id === 'split-3' ? 'a' : false, rules: [rule] };
  }
  // No client key, no polling, no streaming: nothing leaves the process.
  const payload = { features, savedGroups: { [SEGMENT]: members } };
  const client = new GrowthBookClient({}).initSync({ payload });
  const notes = {
    rollout: 'a force rule with coverage 0.5',
    ...segmentNote('`$inGroup` on a saved group of 10,000 ids (an array: `includes`)'),
    matches: '`$regex` (a JavaScript RegExp)',
    'split-3': 'an experiment rule, 3 variations, weights 1/3 (its own hashing)',
  };
  const cases = casesOf(
    notes,
    (key) => ({
      run: (users, start, n) => growthbookValueLoop(client, key, 'a', users, start, n),
      answer: (user) => client.getFeatureValue(key, null, user),
    }),
    (key) => ({
      run: (users, start, n) => growthbookOnLoop(client, key, users, start, n),
      answer: (user) => client.isOn(key, user),
    }),
  );
  return {
    name: 'GrowthBook',
    version: versionOf('@growthbook/growthbook'),
    api: '`GrowthBookClient` (its multi-user server API) `initSync({ payload })`, then `client.isOn(key, { attributes })` (split: `getFeatureValue`); one feature per case, one rule with a `condition` (several clauses: `$and`; string operators: `$regex`)',
    userOf: ({ key, ...rest }) => ({ attributes: { id: key, ...rest } }),
    cases,
  };
}
/** A Flagwire clause as an Unleash constraint (`values` for lists, `value` for one operand). */
function unleashConstraint({ attribute, op, values, negate }) {
  untranslatable('unleash', op, negate);
  const operator = op === 'in' ? (negate ? 'NOT_IN' : 'IN') : (STRINGS[op] ?? COMPARE[op])[1];
  const operand = COMPARE[op] ? { value: String(only(op, values)) } : { values: values.map(String) };
  const contextName = attribute === 'key' ? 'userId' : attribute;
  return { contextName, operator, inverted: false, caseInsensitive: false, ...operand };
}
export async function unleash(members) {
  const { Unleash, InMemStorageProvider } = await import('unleash-client');
  const parameters = (percent, name) => ({ rollout: percent, stickiness: 'default', groupId: name });
  const rollout = (name, percent) => ({ name: 'flexibleRollout', parameters: parameters(percent, name) });
  const features = CASES.map((c) => {
    const name = `bench.${c.id}`;
    let strategy;
    if (c.id === 'rollout') strategy = rollout(name, '50');
    else if (c.id === 'split-3') {
      const variant = (name, weight) => ({ name, weight, weightType: 'variable', stickiness: 'default' });
      const variants = SPLIT.map((s, i) => variant(s.variant, i === 0 ? 334 : 333));
      strategy = { ...rollout(name, '100'), variants };
    } else {
      const clauses = c.segment ? [{ attribute: 'key', op: 'in', values: members }] : c.clauses;
      strategy = { name: 'default', parameters: {}, constraints: clauses.map(unleashConstraint) };
    }
    return { name, enabled: true, type: 'release', project: 'default', strategies: [strategy], variants: [] };
  });
  // Offline: the bootstrap, `refreshInterval: 0` (its poller never fetches), no metrics, the
  // backup in memory. Nothing leaves the process.
  const where = { appName: 'flagwire-bench', url: 'http://127.0.0.1:9/api/' };
  const offline = { refreshInterval: 0, disableMetrics: true, storageProvider: new InMemStorageProvider() };
  const bootstrap = { data: features };
  const client = new Unleash({ ...where, ...offline, bootstrap, skipInstanceCountWarning: true });
  client.on('error', (e) => process.stderr.write(`  unleash error: ${e?.message ?? e}\n`));
  client.on('warn', (w) => process.stderr.write(`  unleash warning: ${w}\n`));
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('unleash: not ready after 10 s')), 10_000);
    client.once('ready', () => resolve(clearTimeout(timer)));
  });
  const notes = {
    rollout: '`flexibleRollout` 50 %',
    ...segmentNote('an `IN` constraint with 10,000 values on `userId`'),
    matches: '`REGEX` (re2js)',
    'split-3': 'strategy variants, weights 334/333/333 (its own hashing)',
  };
  const cases = casesOf(
    notes,
    (name) => ({
      run: (users, start, n) => unleashVariantLoop(client, name, 'a', users, start, n),
      answer: (user) => client.getVariant(name, user).name,
    }),
    (name) => ({
      run: (users, start, n) => unleashOnLoop(client, name, users, start, n),
      answer: (user) => client.isEnabled(name, user),
    }),
  );
  return {
    name: 'Unleash',
    version: versionOf('unleash-client'),
    api: '`new Unleash({ bootstrap, refreshInterval: 0, disableMetrics: true, storageProvider: InMemStorageProvider })` (offline), then `unleash.isEnabled(name, context)` (split: `getVariant(name, context).name`); one toggle per case, a `default` strategy with one constraint per clause',
    userOf: ({ key, ...properties }) => ({ userId: key, properties }),
    cases,
  };
}
