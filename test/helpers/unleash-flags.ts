/**
 * An Unleash feature as Flagwire flags (`unleash-spec.ts` reads the specification): a `boolean`
 * flag for `isEnabled` and a `json` flag whose values are `getVariant`'s answers. A strategy is a
 * rule, in order: its constraints and segments are clauses, a rollout is a split with a `null`
 * slice (the rule does not serve the rest), `userWithId` a key list (`userId` in the ids).
 * Dependencies are prerequisites. Semantics follow `unleash-client` 6 (`lib/strategy`,
 * `lib/client.js`, `lib/variant.js`); what has no Flagwire equivalent throws `Untranslatable`.
 */
import type { FlagSource } from '../../src/core/targeting/compile.js';
import type { Clause, ClauseOperator, JsonValue, Rule, Serve } from '../../src/core/targeting/types.js';

export interface Constraint {
  contextName: string;
  operator: string;
  values?: string[];
  value?: string;
  inverted?: boolean;
  caseInsensitive?: boolean;
}
export interface Variant {
  name: string;
  weight: number;
  payload?: JsonValue;
  overrides?: unknown[];
}
export interface Strategy {
  name: string;
  parameters?: Record<string, string>;
  constraints?: Constraint[];
  segments?: number[];
  variants?: Variant[];
}
export interface Feature {
  name: string;
  enabled: boolean;
  strategies?: Strategy[];
  variants?: Variant[];
  dependencies?: Array<{ feature: string; enabled?: boolean; variants?: string[] }>;
}

export class Untranslatable extends Error {}

const SPLIT_TOTAL = 100_000;
/** Unleash's answer of `getVariant` for a disabled feature, and for an enabled one without variants. */
const OFF = { name: 'disabled', enabled: false, feature_enabled: false };
const NO_VARIANT = { name: 'disabled', enabled: false, feature_enabled: true };

const OPERATORS: Record<string, ClauseOperator> = {
  IN: 'in',
  NOT_IN: 'in',
  STR_STARTS_WITH: 'startsWith',
  STR_ENDS_WITH: 'endsWith',
  STR_CONTAINS: 'contains',
  NUM_EQ: 'numberEquals',
  NUM_GT: 'greaterThan',
  NUM_GTE: 'greaterThanOrEqual',
  NUM_LT: 'lessThan',
  NUM_LTE: 'lessThanOrEqual',
  DATE_AFTER: 'after',
  DATE_BEFORE: 'before',
  SEMVER_EQ: 'semVerEqual',
  SEMVER_GT: 'semVerGreaterThan',
  SEMVER_GTE: 'semVerGreaterThanOrEqual',
  SEMVER_LT: 'semVerLessThan',
  SEMVER_LTE: 'semVerLessThanOrEqual',
  REGEX: 'matches',
  IN_CIDR: 'inCidr',
};

/**
 * A constraint as a clause. Unleash trims list values and drops empty ones; reads one `value`
 * for numbers, dates, versions and patterns; compares dates with `currentTime` whatever the
 * `contextName`; folds case only for string operators and patterns. An operator it does not know
 * is passed on as it is (Flagwire's validation refuses it).
 */
export function clauseOf(c: Constraint): Clause {
  const op = OPERATORS[c.operator] ?? (c.operator as ClauseOperator);
  const list = ['in', 'startsWith', 'endsWith', 'contains', 'inCidr'].includes(op);
  const number = op === 'numberEquals' || /^(greater|less)Than/.test(op);
  let values: unknown[] = list ? (c.values ?? []).filter((v) => !!v).map((v) => v.trim()) : [c.value];
  if (number && typeof c.value === 'string' && c.value.trim() !== '' && Number.isFinite(Number(c.value)))
    values = [Number(c.value)];
  const date = op === 'after' || op === 'before';
  const clause: Clause = { attribute: date ? '$now' : c.contextName, op, values };
  if ((c.operator === 'NOT_IN') !== (c.inverted === true)) clause.negate = true;
  if (c.caseInsensitive && /^(STR_|REGEX)/.test(c.operator)) clause.caseInsensitive = true;
  return clause;
}

/** `attribute` is set and not empty (Unleash's `if (!userId) return false`). */
const present = (attribute: string): Clause[] => [
  { attribute, op: 'exists', values: [] },
  { attribute, op: 'in', values: [''], negate: true },
];

/** A whole percentage 0..100 (a split of thousandths of a percent keeps Unleash's `hash % 100 + 1 <= p`). */
function percentage(text: string | undefined, strategy: string): number {
  const p = Number(text);
  if (!Number.isInteger(p) || p < 0 || p > 100)
    throw new Untranslatable(`${strategy} of ${text} %: Flagwire's rollouts take whole percentages`);
  return p;
}

interface StrategyRule {
  clauses: Clause[];
  rollout?: { percentage: number; bucketBy: string[]; salt: string };
  /** The attributes without which Unleash buckets at random. */
  randomWithout?: string[];
}

/** A strategy as a rule's clauses and rollout; `undefined` for one that enables no one. */
function ruleOf(strategy: Strategy, feature: Feature): StrategyRule | undefined {
  const p = strategy.parameters ?? {};
  const random = (percent: number) => {
    if (percent === 100) return { clauses: [] };
    if (percent === 0) return undefined;
    throw new Untranslatable(
      `${strategy.name} of ${percent} %: Unleash draws a random number at each call, Flagwire buckets by attributes`,
    );
  };
  switch (strategy.name) {
    case 'default':
      return { clauses: [] };
    case 'userWithId':
      return {
        clauses: [{ attribute: 'userId', op: 'in', values: p.userIds ? p.userIds.split(/\s*,\s*/) : [] }],
      };
    case 'remoteAddress':
      return {
        clauses: [{ attribute: 'remoteAddress', op: 'inCidr', values: p.IPs?.split(/\s*,\s*/) ?? [] }],
      };
    case 'gradualRolloutRandom':
      return random(Number(p.percentage) >= 100 ? 100 : Number(p.percentage) < 1 ? 0 : Number(p.percentage));
    case 'gradualRolloutUserId':
    case 'gradualRolloutSessionId': {
      const field = strategy.name === 'gradualRolloutUserId' ? 'userId' : 'sessionId';
      const rollout = percentage(p.percentage, strategy.name);
      if (rollout === 0) return undefined;
      return {
        clauses: present(field),
        rollout: { percentage: rollout, bucketBy: [field], salt: p.groupId ?? '' },
      };
    }
    case 'flexibleRollout': {
      const rollout = percentage(p.rollout, strategy.name);
      const stickiness = p.stickiness || 'default';
      if (rollout === 0) return undefined;
      if (stickiness === 'random') return random(rollout);
      const salt = p.groupId || feature.name;
      if (stickiness !== 'default')
        return {
          clauses: present(stickiness),
          rollout: { percentage: rollout, bucketBy: [stickiness], salt },
        };
      const bucketBy = ['userId', 'sessionId'];
      return { clauses: [], rollout: { percentage: rollout, bucketBy, salt }, randomWithout: bucketBy };
    }
    default:
      throw new Untranslatable(`strategy ${strategy.name}: no Flagwire equivalent`);
  }
}

/**
 * The one variant a list gives every user, `undefined` for none (no list, or no weight). Several
 * weighted variants have no equivalent: Unleash hashes with seed 86028157 over their weights.
 */
function variantOf(variants: Variant[] | undefined): string | undefined {
  if (!variants?.length || variants.reduce((sum, v) => sum + v.weight, 0) <= 0) return undefined;
  const weighted = variants.filter((v) => v.weight > 0);
  if (weighted.length > 1)
    throw new Untranslatable(
      'variants chosen by weight: Unleash hashes with murmur3 seed 86028157 over the variants\' weights, Flagwire\'s splits with seed 0 over 100,000 (CONTRACT "Splits"), so a user lands elsewhere',
    );
  if (variants.some((v) => v.overrides?.length))
    throw new Untranslatable('variant overrides are not translated');
  return weighted[0]!.name;
}

export interface Translation {
  flag?: FlagSource;
  why?: string;
  randomWithout?: string[];
}

/** A feature as its boolean (`variants: false`) or json flag. */
export function flagOf(
  feature: Feature,
  key: string,
  keys: Keys,
  features: Map<string, Feature>,
  json: boolean,
): Translation {
  const strategies = feature.strategies;
  if (!Array.isArray(strategies)) throw new Untranslatable('strategies is not a list: Unleash answers false');
  let randomWithout: string[] | undefined;
  const rules: Rule[] = [];
  const serveOf = (strategy: Strategy | undefined): string => {
    if (!json) return 'on';
    return variantOf(strategy?.variants) ?? variantOf(feature.variants) ?? 'disabled';
  };
  strategies.forEach((strategy, i) => {
    const rule = ruleOf(strategy, feature);
    if (!rule) return;
    const clauses = [...rule.clauses, ...(strategy.constraints ?? []).map(clauseOf)];
    for (const id of strategy.segments ?? []) clauses.push({ op: 'inSegment', values: [keys.segment(id)] });
    const variant = serveOf(strategy);
    let serve: Serve = { variant };
    if (rule.rollout) {
      const weight = rule.rollout.percentage * 1000;
      const split = [
        { variant, weight },
        { variant: null, weight: SPLIT_TOTAL - weight },
      ];
      serve = { split, bucketBy: rule.rollout.bucketBy, salt: rule.rollout.salt };
      if (rule.randomWithout && weight < SPLIT_TOTAL) randomWithout = rule.randomWithout;
    }
    rules.push({ id: `s${i}`, clauses, serve });
  });
  const prerequisites = (feature.dependencies ?? []).map((d) => {
    const parent = features.get(d.feature);
    if (parent?.dependencies?.length)
      throw new Untranslatable(
        `depends on ${d.feature}, which has dependencies of its own: Unleash then disables the child, Flagwire evaluates prerequisites up to 5 deep and refuses cycles (protocol §12.1)`,
      );
    if (d.enabled === false) return { flag: keys.flag(d.feature, false), variants: ['off'] };
    if (d.variants?.length) return { flag: keys.flag(d.feature, true), variants: d.variants };
    return { flag: keys.flag(d.feature, false), variants: ['on'] };
  });
  // No strategies: enabled for everyone (`unleash-client`'s `isFeatureEnabled`).
  const fallthrough = strategies.length === 0 ? serveOf(undefined) : 'off';
  const flag: FlagSource = { key, type: json ? 'json' : 'boolean', enabled: feature.enabled, version: 1 };
  if (json) {
    const variants: Record<string, JsonValue> = { off: OFF, disabled: NO_VARIANT };
    for (const v of [...(feature.variants ?? []), ...strategies.flatMap((s) => s.variants ?? [])]) {
      if (v.name === 'off' || v.name === 'disabled') throw new Error(`a variant named ${v.name}`);
      const payload = v.payload === undefined ? {} : { payload: v.payload };
      variants[v.name] = { name: v.name, ...payload, enabled: true, feature_enabled: true };
    }
    Object.assign(flag, { variants, offVariant: 'off' });
  }
  if (!(fallthrough === 'on' && !json)) flag.fallthrough = { variant: fallthrough };
  if (rules.length) flag.rules = rules;
  if (prerequisites.length) flag.prerequisites = prerequisites;
  return randomWithout ? { flag, randomWithout } : { flag };
}

export interface Keys {
  flag(feature: string, json: boolean): string;
  segment(id: number): string;
}
