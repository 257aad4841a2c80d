/**
 * The `cost` flags, user and OFREP contexts: shapes grown by a size `n` (the cost check decides how
 * large) so that the user matches no rule, yet every rule is looked at and all its clauses but the last hold.
 */
import { evenSplit } from './util.mjs';

/** A 60-character user agent (no lowercase letter in it is followed by an `x`, nor is there a `#`). */
const USER_AGENT = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/';
/** A 64-character campaign tag, lowercase letters only and no `x`: the cost model's longest scalar. */
const CAMPAIGN = 'springsaleweeklynewsletterbrandawarenessretargetingcohortalphabe';
const APP_VERSION = '5.12.3-rc.1';
/** The realistic user `i` (the management form of its attributes; the SDK's user, OFREP's context). */
export function userOf(i) {
  const where = { country: 'DE', locale: 'de-DE', plan: 'team', platform: 'web', appVersion: APP_VERSION };
  const tags = { userAgent: USER_AGENT, utmCampaign: CAMPAIGN, ip: '2001:db8:85a3::8a2e:370:7334' };
  return { key: `user-${i}`, email: `jane.doe${i}@example.com`, ...where, ...tags, seats: 42, age: 37 };
}
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
/** `startsWith` operands of 60 characters sharing the user agent's first 55 (compared before it fails). */
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
/** A `string` flag with variants `on`/`off` that serves `off` unless one of `rules` matches. */
const ruled = (key, rules, fields = {}) => ({
  key,
  type: 'string',
  variants: { on: 'on', off: 'off' },
  offVariant: 'off',
  fallthrough: { variant: 'off' },
  rules: rules.map((r) => ({ ...r, serve: { variant: 'on' } })),
  ...fields,
});
/** What to create for a flag of one rule of one clause. */
const single = (key, clause) => ({ segments: [], flags: [ruled(key, [{ clauses: [clause] }])], top: key });
/** The plain 50 % rollout of the baseline. */
export const ROLLOUT = { key: 'roll', type: 'rollout', percentage: 50 };
/** 2001:db8:9000::/48 and up: never the user's 2001:db8:85a3::/48. */
const cidr = (i) => `2001:db8:${(0x9000 + i).toString(16)}::/48`;
/** One clause of `n` operands: [id, label, attribute, op, operand i]. */
const OPERANDS = [
  ['starts-with', '(b) one `startsWith`, 55-char shared prefix', 'userAgent', 'startsWith', prefixOperand],
  ['contains', '(b2) one `contains`, UA pieces', 'userAgent', 'contains', containsOperand],
  ['semver', '(c) one `semVerEqual`, same core', 'appVersion', 'semVerEqual', (i) => `5.12.3-rc.${i + 2}`],
  ['numbers', '(c2) one `lessThan`, numbers', 'seats', 'lessThan', (i) => -i],
  ['cidr', '(c3) one `inCidr`, IPv6 /48 ranges', 'ip', 'inCidr', cidr],
];
/** One `matches` clause of size `N`: [id, label, attribute, pattern of N]. */
const PATTERNS = [
  ['matches', '(d) `[a-z]{1,N}x` on the user agent', 'userAgent', (n) => `[a-z]{1,${n}}x`],
  ['matches-64', '(d2) `[a-z]{1,N}x` on 64 letters', 'utmCampaign', (n) => `[a-z]{1,${n}}x`],
  ['matches-live', '(d3) `(?:[^#]*){N}#` on the user agent', 'userAgent', (n) => `(?:[^#]*){${n}}#`],
  ['matches-class', '(d4) `(?:\\PN*){N}#` on the user agent', 'userAgent', (n) => `(?:\\PN*){${n}}#`],
];
const inRules = (n, key) => ({ segments: [], flags: [ruled(key, failingRules(n, 100))], top: key });
function segment(n, key, { segmentKeys = [] } = {}) {
  const seg = { key: `${key}-seg`, included: segmentKeys, excluded: [], rules: failingRules(n, 100) };
  return {
    segments: [seg],
    flags: [ruled(key, [{ clauses: [{ op: 'inSegment', values: [seg.key] }] }])],
    top: key,
  };
}
/** The prerequisite graph: 10 prerequisites of the top, the first over a chain of 4 (5 deep). */
const PREREQUISITES = 10;
const CHAIN = 4;
const RULES_PER_GRAPH_FLAG = 6;
function graph(n, key) {
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
}
/**
 * The shapes: `build(n, key)` → what to create, in order, `{ segments, flags, top }` (`top` is
 * evaluated); `max`, the most the structure allows (§12.2): a search reaching it met no cost refusal.
 */
const shape = (id, label, unit, max, build) => ({ id, label, unit, max, build });
export const SHAPES = [
  shape('in-rules', '(a) 100 rules of `in` clauses', 'clauses', 10_000, inRules),
  ...OPERANDS.map(([id, label, attribute, op, operand]) => {
    const values = (n) => Array.from({ length: n }, (_, i) => operand(i));
    return shape(id, label, 'operands', 10_000, (n, key) =>
      single(key, { attribute, op, values: values(n) }),
    );
  }),
  ...PATTERNS.map(([id, label, attribute, pattern]) =>
    shape(id, label, 'N', 1000, (n, key) => single(key, { attribute, op: 'matches', values: [pattern(n)] })),
  ),
  shape('segment', '(e) a segment of 100 rules of `in` clauses', 'clauses', 10_000, segment),
  shape('prerequisites', '(f) 10 prerequisites, 5 deep, 15 flags of rules', 'clauses', 15 * 100 * 100, graph),
];
/** The small context: the realistic user 42. */
export function smallContext() {
  const { key, ...attributes } = userOf(42);
  return { targetingKey: key, ...attributes };
}
/** Attributes the shapes' clauses read (the user's value holds there). */
const READ = 'country plan platform locale appVersion userAgent utmCampaign ip seats'.split(' ');
const TEXTS = ['userAgent', 'utmCampaign'];
/** In an array, item `k` of the items before the user's value, which fail the clause. */
const OTHER = {
  appVersion: (k) => `4.${k}.0`,
  ip: (k) => `2001:db8:85a3::${k.toString(16)}`,
  seats: (k) => 100 + k,
};
/**
 * A context at `CONTEXT_BOUNDS` and `CONTEXT_BYTES` (32 KiB, 1,000 entries, texts of 4,096, arrays of
 * 50). `scalars`: the user agent and campaign 4,096 long; `arrays`: each attribute the shapes read an
 * array ending with the user's value; then filler up to the bounds.
 */
export function boundsContext(kind) {
  const [entries, text, items, bodyBytes] = [1000, 4096, 50, 32 * 1024 - 64];
  const base = smallContext();
  // In arrays, the long texts share the body: as long as 32 KiB allows for two arrays of them.
  const length = kind === 'scalars' ? text : Math.min(text, Math.floor((bodyBytes * 0.6) / (2 * items)) - 8);
  const long = (s) => s.repeat(Math.ceil(length / s.length)).slice(0, length);
  const context = { ...base };
  if (kind === 'scalars') for (const name of TEXTS) context[name] = long(base[name]);
  else
    for (const name of READ) {
      const mine = base[name];
      // The texts alike up to their last 4 characters (digits: no letter run grows there).
      const other = TEXTS.includes(name)
        ? (k) => `${long(mine).slice(0, length - 4)}${String(k).padStart(4, '0')}`
        : (OTHER[name] ?? ((k) => `other-${name}-${k}`));
      const last = TEXTS.includes(name) ? long(mine) : mine;
      context[name] = [...Array.from({ length: items - 1 }, (_, k) => other(k)), last];
    }
  let used = Object.keys(context).length;
  for (const v of Object.values(context)) if (Array.isArray(v)) used += v.length;
  const fillers = entries - used;
  const size = Buffer.byteLength(JSON.stringify({ context }));
  const each = Math.min(text, Math.floor((bodyBytes - size) / Math.max(fillers, 1)) - 16);
  const filler = (i) => `attr${String(i).padStart(3, '0')}`;
  for (let i = 0; i < fillers; i++) context[filler(i)] = 'f'.repeat(Math.max(each, 1));
  // Fillers of one character may still pass the bytes: as many as fit.
  for (let i = fillers - 1; i >= 0 && Buffer.byteLength(JSON.stringify(context)) > bodyBytes; i--)
    delete context[filler(i)];
  return context;
}
