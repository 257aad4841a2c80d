/**
 * The `targeting` users, cases and Flagwire's side. An implementation:
 * `{ name, version, api, userOf(attributes), cases: { [id]: { run, answer } } }`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import murmurhash from 'murmurhash';
import { DEFAULT, flat, getStringLoop, isEnabledLoop } from './measure.mjs';
import { REPO_DIR } from './util.mjs';

const COUNTRIES = 'US CA GB DE FR NL SE NO DK FI'.split(' ');
const LANGUAGES = 'en en en de fr nl sv nb da fi'.split(' ');
const PLANS = ['pro', 'team', 'enterprise'];
const PLATFORMS = ['ios', 'android', 'web'];
/** User `i`'s attributes (Flagwire's form): every rule below holds for every one of them. */
export function attributesOf(i) {
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
export const OUTSIDER = { ...attributesOf(7), country: 'KP', locale: 'ko-KP', email: 'kim@example.net' };
/** Every 10th user is in the segment (10,000 of the default 100,000). */
export const SEGMENT = 'seg';
export const SEGMENT_STRIDE = 10;
export const segmentMembers = (users) =>
  Array.from({ length: Math.ceil(users / SEGMENT_STRIDE) }, (_, i) => `user-${i * SEGMENT_STRIDE}`);
/**
 * Clause templates, all holding for every user (so all are evaluated); `r`, the repetition, changes
 * the operands only. Only operators all three can express (bench/README.md says which are left out).
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
const EMAIL = '^[a-z0-9._%+-]+@(mail\\.)?example\\.(com|org)$';
const MATCHES = { attribute: 'email', op: 'matches', values: [EMAIL] };
export const SPLIT = ['a', 'b', 'c'].map((variant, i) => ({ variant, weight: i === 0 ? 33_334 : 33_333 }));
/** The cases: `users` all, `members` or `others` of the segment; `want` every user's answer, or by bucket. */
export const CASES = [
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
  { id: 'matches', label: 'matches (e-mail domain pattern)', clauses: [MATCHES], want: true },
  { id: 'split-3', label: 'split over 3 variants', want: 'split' },
];
/** The contract's split (CONTRACT "Splits"), by an independent murmur3: the variant of `key`. */
export function splitVariant(salt, key) {
  const r = murmurhash.v3(`${salt}:${key}`, 0) % 100_000;
  const f = (r % 100) * 1000 + Math.floor(r / 100);
  let sum = 0;
  for (const { variant, weight } of SPLIT) {
    sum += weight;
    if (sum > f) return variant;
  }
  return null;
}
export const rolloutIn = (flagKey, key) => (murmurhash.v3(`${flagKey}:${key}`, 0) % 100) + 1 <= 50;
/** Flagwire: one `createTestClient` of the build, offline; `roll` by `isEnabled`, the rest by `getString`. */
export function flagwire(createTestClient, members) {
  const string = (key, fields) => ({ key, type: 'string', enabled: true, description: null, ...fields });
  const flags = CASES.map((c) => {
    const key = `bench.${c.id}`;
    if (c.id === 'rollout')
      return { key: 'roll', type: 'rollout', enabled: true, percentage: 50, description: null };
    if (c.id === 'split-3')
      return string(key, { variants: { a: 'a', b: 'b', c: 'c' }, fallthrough: { split: SPLIT } });
    const clauses = c.segment ? [{ op: 'inSegment', values: [SEGMENT] }] : c.clauses;
    const rules = [{ id: `${c.id}-rule`, clauses, serve: { variant: 'on' } }];
    const variants = { on: 'on', off: 'off' };
    return string(key, { variants, offVariant: 'off', rules, fallthrough: { variant: 'off' } });
  });
  const segments = [{ key: SEGMENT, included: members, excluded: [], rules: [] }];
  const client = createTestClient({ flags, segments });
  const cases = {
    rollout: {
      run: (users, start, n) => isEnabledLoop(client, 'roll', users, start, n),
      answer: (user) => client.isEnabled('roll', user),
    },
  };
  for (const c of CASES.slice(1)) {
    const key = `bench.${c.id}`;
    const usual = c.id === 'split-3' ? 'a' : c.want ? 'on' : 'off';
    cases[c.id] = {
      run: (users, start, n) => getStringLoop(client, key, usual, users, start, n),
      answer: (user) => {
        const got = client.getString(key, user, DEFAULT);
        if (got !== DEFAULT) return c.id === 'split-3' ? got : got === 'on';
        const d = client.getDetail(key, user, DEFAULT);
        return `${d.reason} ${d.errorCode ?? ''}`;
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
