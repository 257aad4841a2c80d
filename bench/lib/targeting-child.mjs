/**
 * The measuring process of the `targeting` benchmark (spawned by `bench/targeting.mjs`), one per
 * implementation and mode, so that no implementation's JIT feedback reaches another's:
 *
 *   node [--expose-gc ...] bench/lib/targeting-child.mjs MODE CONFIG_JSON
 *
 * CONFIG: `{ impl: 'flagwire' | 'growthbook' | 'unleash', sdkUrl, users, rounds, passes, passMs,
 * ... }`; `sdkUrl` is the build under test's `testing.js` (`createTestClient`: the real client,
 * offline, the same evaluation as `createClient`).
 *
 * MODE `timing`: CPU ns per evaluation of every case, each pass alternating with the baseline,
 *   Flagwire's plain rollout through the built SDK (`client.isEnabled('roll', user)` on a
 *   `createTestClient`), measured in the same process whatever the implementation.
 * MODE `garbage`: bytes allocated per evaluation (run with `--expose-gc` and a young generation
 *   no pass fills, see `targeting.mjs`).
 *
 * Prints one JSON object on stdout; progress goes to stderr.
 *
 * Every implementation evaluates the same cases on the same users, each in its own form, made up
 * front: Flagwire `{ key, email, ... }`, GrowthBook `{ attributes: { id, email, ... } }`, Unleash
 * `{ userId, properties: { email, ... } }`. All cases of an implementation run in one process (an
 * application evaluates all kinds of flags through one client). Before any measurement, every
 * answer is checked: each user's exact variant where the formula is known (Flagwire's rollout
 * and split, against the `murmurhash` package), else the rule's answer for every user, a user
 * each rule must refuse, and the peers' rollout and split shares.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import murmurhash from 'murmurhash';
import { median, REPO_DIR } from './util.mjs';

const [mode, configJson] = process.argv.slice(2);
const config = JSON.parse(configJson);
const { createTestClient } = await import(config.sdkUrl);

const err = (line) => process.stderr.write(`${line}\n`);
const versionOf = (name) =>
  JSON.parse(readFileSync(join(REPO_DIR, 'node_modules', name, 'package.json'), 'utf8')).version;

// ---------------------------------------------------------------- users

const COUNTRIES = 'US CA GB DE FR NL SE NO DK FI'.split(' ');
const LANGUAGES = 'en en en de fr nl sv nb da fi'.split(' ');
const PLANS = ['pro', 'team', 'enterprise'];
const PLATFORMS = ['ios', 'android', 'web'];
/** A flat, non-internalized copy, as a string parsed from a request would be. */
const flat = (s) => Buffer.from(s, 'latin1').toString('latin1');

/** User `i`'s attributes (Flagwire's form): every rule below holds for every one of them. */
function attributesOf(i) {
  const c = i % 10;
  return {
    key: flat(`user-${i}`),
    email: flat(`user${i}@${i % 4 === 0 ? 'mail.' : ''}example.${i % 2 ? 'com' : 'org'}`),
    country: flat(COUNTRIES[c]),
    locale: flat(`${LANGUAGES[c]}-${COUNTRIES[c]}`),
    plan: flat(PLANS[i % 3]),
    platform: flat(PLATFORMS[(i >> 2) % 3]),
    age: 18 + (i % 60),
    seats: 1 + (i % 500),
    appVersion: flat(`${2 + (i % 2)}.${(i >> 1) % 10}.${(i >> 3) % 7}`),
  };
}
/** Refused by every rule (country, e-mail domain): checks that no rule is trivially true. */
const OUTSIDER = { ...attributesOf(7), country: 'KP', locale: 'ko-KP', email: 'kim@example.net' };

/** Every 10th user is in the segment (10,000 of the default 100,000). */
const SEGMENT = 'seg';
const SEGMENT_STRIDE = 10;

// ---------------------------------------------------------------- the rules (Flagwire's wire form)

/**
 * Clause templates: `r` (the repetition, for the 100-clause rule) changes the operands, never
 * the outcome: every clause holds for every user, so every clause is evaluated. The operators
 * are those all three can express: `in` (and negated), `startsWith`, `endsWith`, `contains`,
 * numbers, semver. (Dates: Unleash compares only the current time, GrowthBook has no date
 * operator; `inCidr`: not in GrowthBook; `exists`: not in Unleash.)
 */
const TEMPLATES = [
  (r) => ({ attribute: 'country', op: 'in', values: [...COUNTRIES, `X${r}`] }),
  (r) => ({ attribute: 'plan', op: 'in', values: [...PLANS, `legacy-${r}`] }),
  (r) => ({ attribute: 'email', op: 'endsWith', values: ['example.com', 'example.org', `example${r}.net`] }),
  (r) => ({ attribute: 'key', op: 'startsWith', values: ['user-', `svc${r}-`] }),
  (r) => ({ attribute: 'age', op: 'greaterThanOrEqual', values: [18 - r] }),
  (r) => ({ attribute: 'age', op: 'lessThan', values: [100 + r] }),
  (r) => ({ attribute: 'appVersion', op: 'semVerGreaterThanOrEqual', values: [`1.${r}.0`] }),
  (r) => ({ attribute: 'appVersion', op: 'semVerLessThan', values: [`4.${r}.0`] }),
  (r) => ({ attribute: 'platform', op: 'in', values: [...PLATFORMS, `tv${r}`] }),
  (r) => ({ attribute: 'country', op: 'in', values: ['KP', 'IR', 'SY', 'CU', `Z${r}`], negate: true }),
  (r) => ({ attribute: 'email', op: 'contains', values: ['@', `+${r}`] }),
  (r) => ({ attribute: 'seats', op: 'lessThanOrEqual', values: [500 + r] }),
  (r) => ({ attribute: 'seats', op: 'greaterThan', values: [-r] }),
  (r) => ({ attribute: 'appVersion', op: 'semVerGreaterThan', values: [`1.99.${r}`] }),
  (r) => ({ attribute: 'appVersion', op: 'semVerLessThanOrEqual', values: [`3.9.${9 + r}`] }),
  (r) => ({
    attribute: 'locale',
    op: 'startsWith',
    values: [...LANGUAGES.slice(2), `x${r}`].map((l) => `${l}-`),
  }),
  (r) => ({ attribute: 'locale', op: 'endsWith', values: [...COUNTRIES, `Q${r}`].map((c) => `-${c}`) }),
  (r) => ({ attribute: 'key', op: 'contains', values: ['-', `~${r}`] }),
  (r) => ({ attribute: 'plan', op: 'in', values: ['free', `trial-${r}`], negate: true }),
  (r) => ({ attribute: 'age', op: 'lessThanOrEqual', values: [77 + r] }),
];
const clausesOf = (n) =>
  Array.from({ length: n }, (_, i) => TEMPLATES[i % TEMPLATES.length](Math.floor(i / TEMPLATES.length)));
/** An e-mail domain pattern (RE2 syntax; the same text is a valid JavaScript RegExp). */
const EMAIL_PATTERN = '^[a-z0-9._%+-]+@(mail\\.)?example\\.(com|org)$';

const SPLIT = [
  { variant: 'a', weight: 33_334 },
  { variant: 'b', weight: 33_333 },
  { variant: 'c', weight: 33_333 },
];

/**
 * The cases, in order. `users`: all, the segment's members or the others. `want`: the answer
 * every user gets (rules), or `rollout`/`split` (the user's bucket decides).
 */
const CASES = [
  { id: 'rollout', label: 'plain rollout 50 % (baseline)', want: 'rollout' },
  { id: 'rule-1', label: 'rule of 1 clause (in)', clauses: clausesOf(1), want: true },
  { id: 'rule-10', label: 'rule of 10 clauses', clauses: clausesOf(10), want: true },
  { id: 'rule-100', label: 'rule of 100 clauses', clauses: clausesOf(100), want: true },
  { id: 'segment-in', label: '10,000-key segment, user in', segment: true, users: 'members', want: true },
  {
    id: 'segment-out',
    label: '10,000-key segment, user not in',
    segment: true,
    users: 'others',
    want: false,
  },
  {
    id: 'matches',
    label: 'matches (e-mail domain pattern)',
    clauses: [{ attribute: 'email', op: 'matches', values: [EMAIL_PATTERN] }],
    want: true,
  },
  { id: 'split-3', label: 'split over 3 variants', want: 'split' },
];

/** The contract's split (CONTRACT "Splits"), by an independent murmur3: the variant of `key`. */
function splitVariant(salt, key) {
  const r = murmurhash.v3(`${salt}:${key}`, 0) % 100_000;
  const f = (r % 100) * 1000 + Math.floor(r / 100);
  let sum = 0;
  for (const { variant, weight } of SPLIT) {
    sum += weight;
    if (sum > f) return variant;
  }
  return null;
}
const rolloutIn = (flagKey, key) => (murmurhash.v3(`${flagKey}:${key}`, 0) % 100) + 1 <= 50;

// ---------------------------------------------------------------- the loops (one function per kind, shared by the cases, as in an application)

/** The baseline: `client.isEnabled` of a plain rollout flag. */
function plainLoop(client, key, users, start, n) {
  let hits = 0;
  const u = users.length;
  for (let i = 0, j = start; i < n; i++) {
    if (client.isEnabled(key, users[j])) hits++;
    if (++j === u) j = 0;
  }
  return hits;
}

function stringLoop(client, key, want, users, start, n) {
  let hits = 0;
  const u = users.length;
  for (let i = 0, j = start; i < n; i++) {
    if (client.getString(key, users[j], DEFAULT) === want) hits++;
    if (++j === u) j = 0;
  }
  return hits;
}

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

// ---------------------------------------------------------------- the implementations

/** The caller's default of `getString`: no variant has it, so an error or a missing flag shows. */
const DEFAULT = 'DEFAULT';

/**
 * Each answers `{ name, version, api, cases: { [id]: { run(users, start, n), answer(user),
 * note? } | { na } }, userOf(attributes) }`: `run` evaluates n users from `start` and counts the
 * answers equal to the case's usual answer; `answer` is one user's answer (`true`/`false`, or
 * the variant's name).
 *
 * Flagwire: one `createTestClient({ flags, segments })` (the built SDK's client, offline) holds
 * every case's flag, in the management representation. The rollout: `{ type: 'rollout',
 * percentage: 50 }`, `isEnabled`. The rules: a `string` flag with variants `on`/`off`, one rule
 * serving `on`, the fallthrough `off`, evaluated with `getString(key, user, 'DEFAULT')`; the
 * segment as `{ op: 'inSegment', values: ['seg'] }`; the split: a `string` flag whose fallthrough
 * is `{ split: [a 33,334, b 33,333, c 33,333] }`.
 */
function flagwire() {
  const members = [];
  for (let i = 0; i < config.users; i += SEGMENT_STRIDE) members.push(`user-${i}`);
  const flags = [];
  for (const c of CASES) {
    if (c.id === 'rollout') {
      flags.push({ key: 'roll', type: 'rollout', enabled: true, percentage: 50, description: null });
      continue;
    }
    const key = `bench.${c.id}`;
    flags.push(
      c.id === 'split-3'
        ? {
            key,
            type: 'string',
            enabled: true,
            description: null,
            variants: { a: 'a', b: 'b', c: 'c' },
            fallthrough: { split: SPLIT },
          }
        : {
            key,
            type: 'string',
            enabled: true,
            description: null,
            variants: { on: 'on', off: 'off' },
            offVariant: 'off',
            rules: [
              {
                id: `${c.id}-rule`,
                clauses: c.segment ? [{ op: 'inSegment', values: [SEGMENT] }] : c.clauses,
                serve: { variant: 'on' },
              },
            ],
            fallthrough: { variant: 'off' },
          },
    );
  }
  const client = createTestClient({
    flags,
    segments: [{ key: SEGMENT, included: members, excluded: [], rules: [] }],
  });
  const cases = {};
  for (const c of CASES) {
    if (c.id === 'rollout') {
      cases[c.id] = {
        run: (users, start, n) => plainLoop(client, 'roll', users, start, n),
        answer: (user) => client.isEnabled('roll', user),
      };
      continue;
    }
    const key = `bench.${c.id}`;
    const usual = c.id === 'split-3' ? 'a' : c.want ? 'on' : 'off';
    cases[c.id] = {
      run: (users, start, n) => stringLoop(client, key, usual, users, start, n),
      answer: (user) => {
        const got = client.getString(key, user, DEFAULT);
        if (got === DEFAULT) {
          const d = client.getDetail(key, user, DEFAULT);
          return `${d.reason} ${d.errorCode ?? ''}`;
        }
        return c.id === 'split-3' ? got : got === 'on';
      },
    };
  }
  return {
    name: 'Flagwire',
    version: JSON.parse(readFileSync(join(REPO_DIR, 'package.json'), 'utf8')).version,
    api: "the built SDK: `createTestClient({ flags, segments })` (dist/testing.js; the real client, offline), then `client.isEnabled('roll', user)` (rollout) or `client.getString(key, user, 'DEFAULT')` (every targeting case)",
    userOf: (a) => a,
    cases,
  };
}

const escapeRegex = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** A Flagwire clause as a GrowthBook condition (MongoDB-like; strings by `$regex`, which is how GrowthBook tests them). */
function growthbookClause({ attribute, op, values, negate }) {
  const any = `(?:${values.map((x) => escapeRegex(String(x))).join('|')})`;
  const [v] = values;
  const one = (cond) => {
    if (values.length !== 1) throw new Error(`growthbook: ${op} takes one value`);
    return cond;
  };
  const conditions = {
    in: () => ({ [negate ? '$nin' : '$in']: values }),
    startsWith: () => ({ $regex: `^${any}` }),
    endsWith: () => ({ $regex: `${any}$` }),
    contains: () => ({ $regex: any }),
    matches: () => one({ $regex: v }),
    lessThan: () => one({ $lt: v }),
    lessThanOrEqual: () => one({ $lte: v }),
    greaterThan: () => one({ $gt: v }),
    greaterThanOrEqual: () => one({ $gte: v }),
    semVerLessThan: () => one({ $vlt: v }),
    semVerLessThanOrEqual: () => one({ $vlte: v }),
    semVerGreaterThan: () => one({ $vgt: v }),
    semVerGreaterThanOrEqual: () => one({ $vgte: v }),
  };
  if (!conditions[op] || (negate && op !== 'in')) throw new Error(`growthbook: no translation of ${op}`);
  return { [attribute === 'key' ? 'id' : attribute]: conditions[op]() };
}

async function growthbook() {
  const { GrowthBookClient } = await import('@growthbook/growthbook');
  const members = [];
  for (let i = 0; i < config.users; i += SEGMENT_STRIDE) members.push(`user-${i}`);
  const features = {};
  for (const c of CASES) {
    let rule;
    if (c.id === 'rollout') rule = { id: 'r', force: true, coverage: 0.5, hashAttribute: 'id' };
    else if (c.id === 'split-3')
      rule = {
        id: 'r',
        key: 'bench.split-3',
        variations: ['a', 'b', 'c'],
        weights: SPLIT.map((s) => s.weight / 100_000),
        hashAttribute: 'id',
      };
    else {
      const clauses = c.segment ? [] : c.clauses.map(growthbookClause);
      const condition = c.segment
        ? { id: { $inGroup: SEGMENT } }
        : clauses.length === 1
          ? clauses[0]
          : { $and: clauses };
      rule = { id: 'r', condition, force: true };
    }
    features[`bench.${c.id}`] = { defaultValue: c.id === 'split-3' ? 'a' : false, rules: [rule] };
  }
  // No client key, no polling, no streaming: nothing leaves the process.
  const client = new GrowthBookClient({}).initSync({
    payload: { features, savedGroups: { [SEGMENT]: members } },
  });
  const cases = {};
  for (const c of CASES) {
    const key = `bench.${c.id}`;
    cases[c.id] =
      c.id === 'split-3'
        ? {
            run: (users, start, n) => growthbookValueLoop(client, key, 'a', users, start, n),
            answer: (user) => client.getFeatureValue(key, null, user),
            note: 'an experiment rule, 3 variations, weights 1/3 (its own hashing)',
          }
        : {
            run: (users, start, n) => growthbookOnLoop(client, key, users, start, n),
            answer: (user) => client.isOn(key, user),
            note: {
              rollout: 'a force rule with coverage 0.5',
              'segment-in': '`$inGroup` on a saved group of 10,000 ids (an array: `includes`)',
              'segment-out': '`$inGroup` on a saved group of 10,000 ids (an array: `includes`)',
              matches: '`$regex` (a JavaScript RegExp)',
            }[c.id],
          };
  }
  return {
    name: 'GrowthBook',
    version: versionOf('@growthbook/growthbook'),
    api: '`GrowthBookClient` (its multi-user server API) `initSync({ payload })`, then `client.isOn(key, { attributes })` (split: `getFeatureValue`); one feature per case, one rule with a `condition` (several clauses: `$and`; string operators: `$regex`)',
    userOf: (a) => {
      const { key, ...rest } = a;
      return { attributes: { id: key, ...rest } };
    },
    cases,
  };
}

const UNLEASH_OPERATORS = {
  in: 'IN',
  startsWith: 'STR_STARTS_WITH',
  endsWith: 'STR_ENDS_WITH',
  contains: 'STR_CONTAINS',
  matches: 'REGEX',
  lessThan: 'NUM_LT',
  lessThanOrEqual: 'NUM_LTE',
  greaterThan: 'NUM_GT',
  greaterThanOrEqual: 'NUM_GTE',
  semVerLessThan: 'SEMVER_LT',
  semVerLessThanOrEqual: 'SEMVER_LTE',
  semVerGreaterThan: 'SEMVER_GT',
  semVerGreaterThanOrEqual: 'SEMVER_GTE',
};

/** A Flagwire clause as an Unleash constraint (`values` for lists, `value` for one operand). */
function unleashConstraint({ attribute, op, values, negate }) {
  const operator = op === 'in' && negate ? 'NOT_IN' : UNLEASH_OPERATORS[op];
  if (!operator || (negate && op !== 'in')) throw new Error(`unleash: no translation of ${op}`);
  const contextName = attribute === 'key' ? 'userId' : attribute;
  const base = { contextName, operator, inverted: false, caseInsensitive: false };
  if (['IN', 'NOT_IN', 'STR_STARTS_WITH', 'STR_ENDS_WITH', 'STR_CONTAINS'].includes(operator))
    return { ...base, values: values.map(String) };
  if (values.length !== 1) throw new Error(`unleash: ${op} takes one value`);
  return { ...base, value: String(values[0]) };
}

async function unleash() {
  const { Unleash, InMemStorageProvider } = await import('unleash-client');
  const members = [];
  for (let i = 0; i < config.users; i += SEGMENT_STRIDE) members.push(`user-${i}`);
  const features = CASES.map((c) => {
    const name = `bench.${c.id}`;
    let strategy;
    if (c.id === 'rollout')
      strategy = {
        name: 'flexibleRollout',
        parameters: { rollout: '50', stickiness: 'default', groupId: name },
      };
    else if (c.id === 'split-3')
      strategy = {
        name: 'flexibleRollout',
        parameters: { rollout: '100', stickiness: 'default', groupId: name },
        variants: [
          { name: 'a', weight: 334, weightType: 'variable', stickiness: 'default' },
          { name: 'b', weight: 333, weightType: 'variable', stickiness: 'default' },
          { name: 'c', weight: 333, weightType: 'variable', stickiness: 'default' },
        ],
      };
    else {
      const constraints = c.segment
        ? [
            {
              contextName: 'userId',
              operator: 'IN',
              values: members,
              inverted: false,
              caseInsensitive: false,
            },
          ]
        : c.clauses.map(unleashConstraint);
      strategy = { name: 'default', parameters: {}, constraints };
    }
    return { name, enabled: true, type: 'release', project: 'default', strategies: [strategy], variants: [] };
  });
  // Offline: the bootstrap, `refreshInterval: 0` (its poller never fetches), no metrics, the
  // backup in memory. Nothing leaves the process.
  const client = new Unleash({
    appName: 'flagwire-bench',
    url: 'http://127.0.0.1:9/api/',
    refreshInterval: 0,
    disableMetrics: true,
    storageProvider: new InMemStorageProvider(),
    bootstrap: { data: features },
    skipInstanceCountWarning: true,
  });
  client.on('error', (e) => err(`  unleash error: ${e?.message ?? e}`));
  client.on('warn', (w) => err(`  unleash warning: ${w}`));
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('unleash: not ready after 10 s')), 10_000);
    client.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  const cases = {};
  for (const c of CASES) {
    const name = `bench.${c.id}`;
    cases[c.id] =
      c.id === 'split-3'
        ? {
            run: (users, start, n) => unleashVariantLoop(client, name, 'a', users, start, n),
            answer: (user) => client.getVariant(name, user).name,
            note: 'strategy variants, weights 334/333/333 (its own hashing)',
          }
        : {
            run: (users, start, n) => unleashOnLoop(client, name, users, start, n),
            answer: (user) => client.isEnabled(name, user),
            note: {
              rollout: '`flexibleRollout` 50 %',
              'segment-in': 'an `IN` constraint with 10,000 values on `userId`',
              'segment-out': 'an `IN` constraint with 10,000 values on `userId`',
              matches: '`REGEX` (re2js)',
            }[c.id],
          };
  }
  return {
    name: 'Unleash',
    version: versionOf('unleash-client'),
    api: '`new Unleash({ bootstrap, refreshInterval: 0, disableMetrics: true, storageProvider: InMemStorageProvider })` (offline), then `unleash.isEnabled(name, context)` (split: `getVariant(name, context).name`); one toggle per case, a `default` strategy with one constraint per clause',
    userOf: (a) => {
      const { key, ...properties } = a;
      return { userId: key, properties };
    },
    cases,
  };
}

// ---------------------------------------------------------------- set-up and checks

const IMPLEMENTATIONS = { flagwire, growthbook, unleash };
if (!IMPLEMENTATIONS[config.impl]) throw new Error(`unknown implementation ${config.impl}`);
err(`  targeting ${mode} ${config.impl}: ${config.users.toLocaleString('en-US')} users...`);
const impl = await IMPLEMENTATIONS[config.impl]();
const baseline = config.impl === 'flagwire' ? impl : flagwire();

const attributes = Array.from({ length: config.users }, (_, i) => attributesOf(i));
const nativeUsers = attributes.map(impl.userOf);
const baseUsers = impl === baseline ? nativeUsers : attributes;
const byRole = (users, role) =>
  role === 'members'
    ? users.filter((_, i) => i % SEGMENT_STRIDE === 0)
    : role === 'others'
      ? users.filter((_, i) => i % SEGMENT_STRIDE !== 0)
      : users;

/**
 * Checks every answer before measuring (a wrong answer is a failed run). Flagwire's rollout and
 * split: each user's exact variant. The peers' rollout and split (their own hashing): shares
 * within 4 standard errors of the weights. Rules: every user (the first `checkUsers` for the peers: their
 * slow cases), and the outsider, who every rule must refuse.
 */
function check(c, cs) {
  const all = byRole(attributes, c.users);
  // The peers' rollout and split: every user too (they are fast), for the shares.
  const sample = impl === baseline || typeof c.want === 'string' ? all : all.slice(0, config.checkUsers);
  const counts = new Map();
  for (const a of sample) {
    const got = cs.answer(impl.userOf(a));
    counts.set(got, (counts.get(got) ?? 0) + 1);
    let want = c.want;
    if (want === 'rollout') want = impl === baseline ? rolloutIn('roll', a.key) : undefined;
    else if (want === 'split') want = impl === baseline ? splitVariant('bench.split-3', a.key) : undefined;
    if (want !== undefined && got !== want)
      throw new Error(
        `${impl.name} ${c.id}: user ${a.key} got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`,
      );
  }
  const share = (v) => (counts.get(v) ?? 0) / sample.length;
  const near = (v, w) => Math.abs(share(v) - w) <= 4 * Math.sqrt((w * (1 - w)) / sample.length);
  if (c.want === 'rollout' && !near(true, 0.5)) throw new Error(`${impl.name} rollout: ${share(true)} in`);
  if (c.want === 'split' && !['a', 'b', 'c'].every((v) => near(v, 1 / 3)))
    throw new Error(`${impl.name} split: ${JSON.stringify([...counts])}`);
  if (c.clauses && cs.answer(impl.userOf(OUTSIDER)) !== false)
    throw new Error(`${impl.name} ${c.id}: the outsider got ${cs.answer(impl.userOf(OUTSIDER))}`);
  return { checkedUsers: sample.length, answers: Object.fromEntries(counts) };
}

const cases = [];
for (const c of CASES) {
  const cs = impl.cases[c.id];
  if (cs.na) {
    cases.push({ id: c.id, label: c.label, na: cs.na });
    continue;
  }
  const checked = check(c, cs);
  cases.push({ ...c, ...cs, checked, users: byRole(nativeUsers, c.users), cursor: 0 });
}
const base = { id: 'baseline', run: baseline.cases.rollout.run, users: baseUsers, cursor: 0 };
const measured = cases.filter((c) => !c.na);
err(`  targeting ${mode} ${config.impl}: answers checked`);

/** One pass of `n` evaluations from where the last pass of `c` ended: `{ ns, wallNs }` per evaluation. */
function pass(c, n) {
  const u0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  c.run(c.users, c.cursor, n);
  const t1 = process.hrtime.bigint();
  const u = process.cpuUsage(u0);
  c.cursor = (c.cursor + n) % c.users.length;
  return { ns: ((u.user + u.system) * 1000) / n, wallNs: Number(t1 - t0) / n };
}

/** Evaluations in a pass of about `ms` (wall time), from passes of growing size. */
function passSize(c, ms) {
  let n = 4;
  for (;;) {
    const { wallNs } = pass(c, n);
    const took = (wallNs * n) / 1e6;
    if (took >= ms / 4 || n >= 1 << 26) return Math.max(1, Math.round((n * ms) / Math.max(took, 1e-3)));
    n *= 4;
  }
}

function warmUp(ms) {
  for (const c of [base, ...measured]) c.n = passSize(c, ms);
  for (let p = 0; p < config.warmupPasses; p++) for (const c of [base, ...measured]) pass(c, c.n);
  for (const c of [base, ...measured]) c.n = passSize(c, ms);
}

// ---------------------------------------------------------------- modes

function timing() {
  const { rounds, passes, passMs } = config;
  const t0 = performance.now();
  warmUp(passMs);
  err(`  targeting timing ${config.impl}: warmed up in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const per = Object.fromEntries(measured.map((c) => [c.id, { ns: [], wall: [], base: [], baseWall: [] }]));
  for (let r = 0; r < rounds; r++) {
    const line = [];
    for (let k = 0; k < measured.length; k++) {
      const c = measured[(k + r) % measured.length];
      const runs = { c: [], base: [] };
      // Alternate which goes first, so that drift within a round favours neither.
      for (let p = 0; p < passes; p++)
        for (const which of (r + p) % 2 === 0 ? ['c', 'base'] : ['base', 'c'])
          runs[which].push(pass(which === 'c' ? c : base, which === 'c' ? c.n : base.n));
      const f = per[c.id];
      f.ns.push(median(runs.c.map((x) => x.ns)));
      f.wall.push(median(runs.c.map((x) => x.wallNs)));
      f.base.push(median(runs.base.map((x) => x.ns)));
      f.baseWall.push(median(runs.base.map((x) => x.wallNs)));
      line.push(`${c.id} ${f.ns.at(-1).toFixed(0)}/${f.base.at(-1).toFixed(0)}`);
    }
    err(`  round ${r + 1}/${rounds} (CPU ns/eval, case/baseline): ${line.join(', ')}`);
  }
  return cases.map((c) => {
    if (c.na) return { id: c.id, label: c.label, na: c.na };
    const f = per[c.id];
    const ratios = f.ns.map((x, i) => x / f.base[i]);
    return {
      id: c.id,
      label: c.label,
      note: c.note,
      checked: c.checked,
      evalsPerPass: c.n,
      nsPerEval: f.ns,
      baselineNsPerEval: f.base,
      ratios,
      nsMedian: median(f.ns),
      wallNsMedian: median(f.wall),
      baselineNsMedian: median(f.base),
      ratioMedian: median(ratios),
      wallRatioMedian: median(f.wall.map((x, i) => x / f.baseWall[i])),
    };
  });
}

async function garbage() {
  if (typeof globalThis.gc !== 'function') throw new Error('garbage mode needs --expose-gc');
  const gcEvents = [];
  const observer = new PerformanceObserver((list) => gcEvents.push(...list.getEntries()));
  observer.observe({ entryTypes: ['gc'] });
  const settle = () => new Promise((r) => setTimeout(r, 20));
  const { garbageSamples: samples, budgetBytes, maxEvals, garbagePassMs } = config;
  warmUp(garbagePassMs);

  /** Heap growth over `n` evaluations of `c` after a full GC; and the GC events that fell inside. */
  const measure = async (c, n) => {
    globalThis.gc();
    globalThis.gc();
    await settle();
    const t0 = performance.now();
    const h0 = process.memoryUsage().heapUsed;
    if (n > 0) c.run(c.users, c.cursor, n);
    const h1 = process.memoryUsage().heapUsed;
    const t1 = performance.now();
    await settle();
    if (n > 0) c.cursor = (c.cursor + n) % c.users.length;
    return { bytes: h1 - h0, gcs: gcEvents.filter((e) => e.startTime >= t0 && e.startTime <= t1).length };
  };
  const controls = [];
  for (let s = 0; s < samples; s++) controls.push((await measure(base, 0)).bytes);
  const control = median(controls);

  const out = [];
  for (const c of [base, ...cases]) {
    if (c.na) {
      out.push({ id: c.id, na: c.na });
      continue;
    }
    // Probes size the passes: at most `maxEvals`, about `garbagePassMs`, and `budgetBytes` of
    // allocation (a quarter of the young generation) at the probes' rate; 16 evaluations, then
    // 1,024 unless those 16 allocated more than 64 KB (the control's jitter hides less in 1,024).
    let probe = Math.min(16, c.n);
    let probed = ((await measure(c, probe)).bytes - control) / probe;
    if (probed * 1024 < 4 << 20 && c.n > probe) {
      probe = Math.min(1024, c.n);
      probed = ((await measure(c, probe)).bytes - control) / probe;
    }
    let n = Math.max(1, Math.min(maxEvals, c.n, Math.floor(budgetBytes / Math.max(probed, 1e-9))));
    let bytes;
    let gcs;
    for (let attempt = 0; ; attempt++) {
      bytes = [];
      gcs = 0;
      for (let s = 0; s < samples; s++) {
        const m = await measure(c, n);
        bytes.push(m.bytes - control);
        gcs += m.gcs;
      }
      if (gcs === 0 || attempt === 3 || n === 1) break;
      n = Math.max(1, Math.floor(n / 4));
    }
    // The least of the samples: what an evaluation allocates is the same every pass; a one-off
    // (code or feedback of a late recompilation) only ever adds.
    const row = {
      id: c.id,
      evals: n,
      bytesPerEval: Math.min(...bytes) / n,
      bytesSamples: bytes,
      gcEvents: gcs,
    };
    err(`  ${c.id}: ${row.bytesPerEval.toFixed(3)} B/eval over ${n} evaluations (${gcs} GCs)`);
    out.push(row);
  }
  observer.disconnect();
  return { controlBytes: control, cases: out };
}

const result = mode === 'timing' ? { cases: timing() } : mode === 'garbage' ? await garbage() : undefined;
if (!result) throw new Error(`unknown mode ${mode}`);
process.stdout.write(
  JSON.stringify({
    mode,
    impl: config.impl,
    name: impl.name,
    version: impl.version,
    api: impl.api,
    node: process.version,
    execArgv: process.execArgv,
    ...result,
  }),
);
