/**
 * The `cost` benchmark's flags, users and contexts (bench/README.md, "Cost"): near-budget flags
 * of several shapes, each grown by one size `n` (the management API's own cost check decides how
 * large it may be), the realistic user every shape is evaluated for, and the OFREP contexts. Every
 * shape is built so that this user matches no rule: every rule is looked at, every clause of it
 * but the last holds (the last fails), so an evaluation does all the work the flag can ask.
 */
import { evenSplit } from './util.mjs';

/** A 60-character user agent (no lowercase letter in it is followed by an `x`, nor is there a `#`). */
export const USER_AGENT = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/';
/** A 64-character campaign tag, lowercase letters only and no `x`: the cost model's longest scalar. */
export const CAMPAIGN = 'springsaleweeklynewsletterbrandawarenessretargetingcohortalphabe';
const APP_VERSION = '5.12.3-rc.1';

/** The realistic user `i` (the management form of its attributes; the SDK's user, OFREP's context). */
export function userOf(i) {
  return {
    key: `user-${i}`,
    email: `jane.doe${i}@example.com`,
    country: 'DE',
    locale: 'de-DE',
    plan: 'team',
    platform: 'web',
    appVersion: APP_VERSION,
    userAgent: USER_AGENT,
    utmCampaign: CAMPAIGN,
    ip: '2001:db8:85a3::8a2e:370:7334',
    seats: 42,
    age: 37,
  };
}

// ---------------------------------------------------------------- clauses

/** `in` clauses that hold for every user of `userOf` (`r` varies the operands, never the outcome). */
const HOLDING = [
  (r) => ({ attribute: 'country', op: 'in', values: ['DE', 'AT', 'CH', 'NL', 'BE', `X${r}`] }),
  (r) => ({ attribute: 'plan', op: 'in', values: ['team', 'enterprise', 'pro', `plan-${r}`] }),
  (r) => ({ attribute: 'platform', op: 'in', values: ['web', 'ios', 'android', `tv-${r}`] }),
  (r) => ({ attribute: 'locale', op: 'in', values: ['de-DE', 'de-AT', 'de-CH', `xx-${r}`] }),
];
/** An `in` clause that fails for every user of `userOf`. */
const FAILING = (r) => ({ attribute: 'country', op: 'in', values: ['KP', 'IR', 'SY', 'CU', `F${r}`] });

/** A rule of `k` clauses (at least 1): `k - 1` that hold, then one that fails. */
function failingRule(k, r) {
  const clauses = Array.from({ length: k - 1 }, (_, i) => HOLDING[(i + r) % HOLDING.length](r));
  clauses.push(FAILING(r));
  return { clauses };
}
/** `rules` rules holding `n` clauses in all (each at least one), as even as can be. */
const failingRules = (n, rules) => evenSplit(Math.max(n, rules), rules).map((k, r) => failingRule(k, r));

/** Four lowercase letters for `i` (26^4 of them). */
const letters = (i) =>
  Array.from({ length: 4 }, (_, d) => String.fromCharCode(97 + (Math.floor(i / 26 ** d) % 26))).join('');

/** `startsWith` operands of 60 characters sharing the user agent's first 55: each compares 55 before it fails. */
const prefixOperand = (i) => `${USER_AGENT.slice(0, 55)}#${letters(i)}`;

/** `contains` operands: a piece of the user agent (10 to 30 characters) after a character it lacks. */
const NOT_IN_UA = '#!~^|{}<>`$&*=?@';
function containsOperand(i) {
  const lead = NOT_IN_UA[i % NOT_IN_UA.length];
  const rest = Math.floor(i / NOT_IN_UA.length);
  const length = 10 + (rest % 21);
  const at = Math.floor(rest / 21) % (USER_AGENT.length - length + 1);
  return `${lead}${USER_AGENT.slice(at, at + length)}`;
}

// ---------------------------------------------------------------- flags

/** A `string` flag with variants `on`/`off` that serves `off` unless a rule matches. */
export const stringFlag = (key, fields) => ({
  key,
  type: 'string',
  variants: { on: 'on', off: 'off' },
  offVariant: 'off',
  fallthrough: { variant: 'off' },
  ...fields,
});
const oneRule = (key, clause) =>
  stringFlag(key, { rules: [{ clauses: [clause], serve: { variant: 'on' } }] });
const ruled = (key, rules, fields = {}) =>
  stringFlag(key, { rules: rules.map((r) => ({ ...r, serve: { variant: 'on' } })), ...fields });

/** The plain 50 % rollout of the baseline. */
export const ROLLOUT = { key: 'roll', type: 'rollout', percentage: 50 };

const PREREQUISITES = 10;
/** Below the first prerequisite, a chain this long: the top is 5 deep. */
const CHAIN = 4;
const RULES_PER_GRAPH_FLAG = 6;

/**
 * The shapes. `build(n, key)` answers what to create, in order: `{ segments, flags, top }` (the
 * flag evaluated is `top`; the others it names). `max`: the most the structure allows (limits of
 * §12.2), so a search that reaches it was not stopped by the cost model.
 */
export const SHAPES = [
  {
    id: 'in-rules',
    label: '(a) 100 rules of `in` clauses',
    unit: 'clauses',
    max: 10_000,
    build: (n, key) => ({ segments: [], flags: [ruled(key, failingRules(n, 100))], top: key }),
  },
  {
    id: 'starts-with',
    label: '(b) one `startsWith`, 55-char shared prefix',
    unit: 'operands',
    max: 10_000,
    build: (n, key) => {
      const values = Array.from({ length: n }, (_, i) => prefixOperand(i));
      return {
        segments: [],
        flags: [oneRule(key, { attribute: 'userAgent', op: 'startsWith', values })],
        top: key,
      };
    },
  },
  {
    id: 'contains',
    label: '(b2) one `contains`, UA pieces',
    unit: 'operands',
    max: 10_000,
    build: (n, key) => {
      const values = Array.from({ length: n }, (_, i) => containsOperand(i));
      return {
        segments: [],
        flags: [oneRule(key, { attribute: 'userAgent', op: 'contains', values })],
        top: key,
      };
    },
  },
  {
    id: 'semver',
    label: '(c) one `semVerEqual`, same core',
    unit: 'operands',
    max: 10_000,
    build: (n, key) => {
      const values = Array.from({ length: n }, (_, i) => `5.12.3-rc.${i + 2}`);
      return {
        segments: [],
        flags: [oneRule(key, { attribute: 'appVersion', op: 'semVerEqual', values })],
        top: key,
      };
    },
  },
  {
    id: 'numbers',
    label: '(c2) one `lessThan`, numbers',
    unit: 'operands',
    max: 10_000,
    build: (n, key) => {
      const values = Array.from({ length: n }, (_, i) => -i);
      return {
        segments: [],
        flags: [oneRule(key, { attribute: 'seats', op: 'lessThan', values })],
        top: key,
      };
    },
  },
  {
    id: 'cidr',
    label: '(c3) one `inCidr`, IPv6 /48 ranges',
    unit: 'operands',
    max: 10_000,
    build: (n, key) => {
      // 2001:db8:9000::/48 and up: never the user's 2001:db8:85a3::/48.
      const values = Array.from({ length: n }, (_, i) => `2001:db8:${(0x9000 + i).toString(16)}::/48`);
      return { segments: [], flags: [oneRule(key, { attribute: 'ip', op: 'inCidr', values })], top: key };
    },
  },
  {
    id: 'matches',
    label: '(d) `[a-z]{1,N}x` on the user agent',
    unit: 'N',
    max: 1000,
    build: (n, key) => ({
      segments: [],
      flags: [oneRule(key, { attribute: 'userAgent', op: 'matches', values: [`[a-z]{1,${n}}x`] })],
      top: key,
    }),
  },
  {
    id: 'matches-64',
    label: '(d2) `[a-z]{1,N}x` on 64 letters',
    unit: 'N',
    max: 1000,
    build: (n, key) => ({
      segments: [],
      flags: [oneRule(key, { attribute: 'utmCampaign', op: 'matches', values: [`[a-z]{1,${n}}x`] })],
      top: key,
    }),
  },
  {
    id: 'matches-live',
    label: '(d3) `(?:[^#]*){N}#` on the user agent',
    unit: 'N',
    max: 1000,
    build: (n, key) => ({
      segments: [],
      flags: [oneRule(key, { attribute: 'userAgent', op: 'matches', values: [`(?:[^#]*){${n}}#`] })],
      top: key,
    }),
  },
  {
    id: 'matches-class',
    label: '(d4) `(?:\\PN*){N}#` on the user agent',
    unit: 'N',
    max: 1000,
    build: (n, key) => ({
      segments: [],
      flags: [oneRule(key, { attribute: 'userAgent', op: 'matches', values: [`(?:\\PN*){${n}}#`] })],
      top: key,
    }),
  },
  {
    id: 'segment',
    label: '(e) a segment of 100 rules of `in` clauses',
    unit: 'clauses',
    max: 10_000,
    build: (n, key, { segmentKeys = [] } = {}) => ({
      segments: [{ key: `${key}-seg`, included: segmentKeys, excluded: [], rules: failingRules(n, 100) }],
      flags: [oneRule(key, { op: 'inSegment', values: [`${key}-seg`] })],
      top: key,
    }),
  },
  {
    id: 'prerequisites',
    label: '(f) 10 prerequisites, 5 deep, 15 flags of rules',
    unit: 'clauses',
    max: 15 * 100 * 100,
    build: (n, key) => {
      const chain = Array.from({ length: CHAIN }, (_, i) => `${key}-c${CHAIN - i}`);
      const direct = Array.from({ length: PREREQUISITES }, (_, i) => `${key}-p${i}`);
      // Bottom up: c4, c3, c2, c1 (each naming the one below), the ten p (p0 naming c1), the top.
      const order = [...chain, ...direct, key];
      const below = (k) => {
        if (k === key) return direct;
        if (k === direct[0]) return [chain.at(-1)];
        const at = chain.indexOf(k);
        return at > 0 ? [chain[at - 1]] : [];
      };
      const perFlag = evenSplit(n, order.length);
      const flags = order.map((k, f) =>
        ruled(k, failingRules(perFlag[f], RULES_PER_GRAPH_FLAG), {
          prerequisites: below(k).map((p) => ({ flag: p, variants: ['off'] })),
        }),
      );
      return { segments: [], flags, top: key };
    },
  },
];

// ---------------------------------------------------------------- OFREP contexts

/** The small context: the realistic user. */
export function smallContext(i = 42) {
  const { key, ...attributes } = userOf(i);
  return { targetingKey: key, ...attributes };
}

/** Attributes the shapes' clauses read, and what they read there (the user's value holds). */
const READ = [
  'country',
  'plan',
  'platform',
  'locale',
  'appVersion',
  'userAgent',
  'utmCampaign',
  'ip',
  'seats',
];

/**
 * A context at the bounds of `CONTEXT_BOUNDS` and `CONTEXT_BYTES` (32 KiB; 1,000 properties and items, texts of 4,096
 * characters, arrays of 50 items). `scalars`: the user agent and the
 * campaign as 4,096-character texts of the same kind (repeated), the rest of the 1,000 properties
 * filler texts as long as the body allows. `arrays`: every attribute the shapes read an array of
 * 50 items whose last is the user's value (the 49 before it fail each clause), the texts among
 * them 4,096 characters long, and filler for the entries left.
 */
export function boundsContext(
  kind,
  { entries = 1000, text = 4096, items = 50, bodyBytes = 32 * 1024 - 64 } = {},
) {
  const base = smallContext(42);
  // In arrays, the long texts share the body: as long as 32 KiB allows for two arrays of them.
  const length = kind === 'scalars' ? text : Math.min(text, Math.floor((bodyBytes * 0.6) / (2 * items)) - 8);
  const long = (s) => s.repeat(Math.ceil(length / s.length)).slice(0, length);
  const context = { ...base };
  if (kind === 'scalars') {
    context.userAgent = long(USER_AGENT);
    context.utmCampaign = long(CAMPAIGN);
  } else {
    for (const name of READ) {
      const mine = base[name];
      const digits = (k) => String(k).padStart(4, '0');
      // The 99 others fail each clause as the user's value would fail the last: the texts
      // alike up to their last 4 characters (digits: no letter run grows there).
      const other = (k) =>
        name === 'userAgent' || name === 'utmCampaign'
          ? `${long(mine).slice(0, length - 4)}${digits(k)}`
          : name === 'appVersion'
            ? `4.${k}.0`
            : name === 'ip'
              ? `2001:db8:85a3::${k.toString(16)}`
              : name === 'seats'
                ? 100 + k
                : `other-${name}-${k}`;
      const last = name === 'userAgent' || name === 'utmCampaign' ? long(mine) : mine;
      context[name] = [...Array.from({ length: items - 1 }, (_, k) => other(k)), last];
    }
  }
  let used = Object.keys(context).length;
  for (const v of Object.values(context)) if (Array.isArray(v)) used += v.length;
  const fillers = entries - used;
  const size = Buffer.byteLength(JSON.stringify({ context }));
  const each = Math.min(text, Math.floor((bodyBytes - size) / Math.max(fillers, 1)) - 16);
  for (let i = 0; i < fillers; i++)
    context[`attr${String(i).padStart(3, '0')}`] = 'f'.repeat(Math.max(each, 1));
  // Fillers of one character may still pass the bytes: as many as fit.
  for (let i = fillers - 1; i >= 0 && Buffer.byteLength(JSON.stringify(context)) > bodyBytes; i--)
    delete context[`attr${String(i).padStart(3, '0')}`];
  return context;
}
