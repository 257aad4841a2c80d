/**
 * The evaluation cost of flags and segments (`docs/protocol.md` §12.10), in units of roughly one
 * comparison of a short attribute (about 5 ns on a 2-core x64 server): what one evaluation does at
 * most, for a user whose attributes are scalars. Within one evaluation each segment and each
 * prerequisite flag is decided once, so a flag's cost counts each segment and each flag of its
 * prerequisite graph once, however often they are named. Pure functions over the wire forms, for
 * the server's check when a flag or segment is saved.
 */
import type { Clause, Prerequisite, Rule, Segment, Serve } from './types.js';

/** What a flag's cost is built from: its own rules and targets, and what they name. */
export interface CostSource {
  rules?: ReadonlyArray<Pick<Rule, 'clauses' | 'serve'>> | undefined;
  targets?: ReadonlyArray<unknown> | undefined;
  prerequisites?: readonly Prerequisite[] | undefined;
  fallthrough?: Serve | undefined;
}

/** Units of one `matches` pattern: its program's instructions (`patternSize`) over a short input. */
export type PatternSize = (pattern: string, caseInsensitive: boolean) => number;

/**
 * The weights of the model, in units of about 5 ns, measured on evaluations of the compiled
 * forms (`bench/cost.mjs`, `npm run bench cost`).
 */
export const COST_UNITS = {
  /** Any clause: reading a top-level attribute, `negate`, an `in` or `exists` test. */
  clause: 10,
  /** Each segment of a JSON-pointer attribute (`/a/b/c`) read on the way. */
  pointerSegment: 7,
  /** Each operand of `startsWith`, `endsWith`, `contains`, besides one unit per 2 of its characters. */
  stringOperand: 2,
  /** Each number or time operand. */
  numberOperand: 1,
  /** Each version operand (a pre-release compared part by part). */
  versionOperand: 10,
  /** Each address range. */
  rangeOperand: 2,
  /** Each instruction of a `matches` program, over a text of up to 64 characters, every state alive. */
  patternInstruction: 170,
  /** A split: hashing the bucket value. */
  split: 20,
  /** A rule, the targets, a segment's key lookups, a prerequisite edge, a segment named. */
  step: 8,
} as const;

/** The flags and segments an environment holds, as the cost model reads them. */
export interface CostGraph {
  flag(key: string): CostSource | undefined;
  segment(key: string): Pick<Segment, 'rules'> | undefined;
}

const VERSION_OPS = new Set([
  'semVerEqual',
  'semVerLessThan',
  'semVerLessThanOrEqual',
  'semVerGreaterThan',
  'semVerGreaterThanOrEqual',
]);

/** What reading the clause's attribute costs: a pointer pays per segment. */
function attributeCost(attribute: unknown): number {
  if (typeof attribute !== 'string' || attribute[0] !== '/') return 0;
  let segments = 0;
  for (let i = 0; i < attribute.length; i++) if (attribute[i] === '/') segments++;
  return segments * COST_UNITS.pointerSegment;
}

/** The cost of one clause, segments aside (an `inSegment` clause costs a step per key it names). */
export function clauseCost(clause: Clause, patternSize: PatternSize): number {
  const values = Array.isArray(clause.values) ? clause.values : [];
  const base = COST_UNITS.clause + attributeCost(clause.attribute);
  switch (clause.op) {
    case 'in':
    case 'exists':
      return base;
    case 'inSegment':
      return base + values.length * COST_UNITS.step;
    case 'matches':
      return (
        base +
        (typeof values[0] === 'string'
          ? patternSize(values[0], clause.caseInsensitive === true) * COST_UNITS.patternInstruction
          : 0)
      );
    case 'startsWith':
    case 'endsWith':
    case 'contains': {
      // Comparing text costs per character shared (about 2.5 ns each).
      let cost = base;
      for (const v of values)
        cost += COST_UNITS.stringOperand + Math.ceil((typeof v === 'string' ? v.length : 0) / 2);
      return cost;
    }
    case 'inCidr':
      return base + values.length * COST_UNITS.rangeOperand;
    default:
      return (
        base +
        values.length * (VERSION_OPS.has(clause.op) ? COST_UNITS.versionOperand : COST_UNITS.numberOperand)
      );
  }
}

const serveCost = (serve: Serve | undefined): number =>
  serve !== undefined && 'split' in serve ? COST_UNITS.split : 0;

/** A flag's own cost and the segments its clauses name (prerequisites aside). */
export function flagOwnCost(flag: CostSource, patternSize: PatternSize, segments: Set<string>): number {
  let cost = COST_UNITS.step + serveCost(flag.fallthrough);
  if (flag.targets?.length) cost += COST_UNITS.step;
  for (const rule of flag.rules ?? []) {
    cost += COST_UNITS.step + serveCost(rule.serve);
    for (const clause of rule.clauses) {
      cost += clauseCost(clause, patternSize);
      if (clause.op === 'inSegment') for (const key of clause.values) segments.add(key as string);
    }
  }
  return cost + (flag.prerequisites?.length ?? 0) * COST_UNITS.step;
}

/**
 * Own costs by flag object: a stored flag never changes in place (a write makes a new one), so
 * its own cost is computed once (the server checks every flag of an environment on each write).
 */
const ownCosts = new WeakMap<CostSource, { cost: number; segments: readonly string[] }>();

function remember(flag: CostSource, patternSize: PatternSize): { cost: number; segments: readonly string[] } {
  const segments = new Set<string>();
  const own = { cost: flagOwnCost(flag, patternSize, segments), segments: [...segments] };
  ownCosts.set(flag, own);
  return own;
}

/** A segment's cost: its key lookups and its rules (a segment names no segment). */
export function segmentCost(segment: Pick<Segment, 'rules'>, patternSize: PatternSize): number {
  let cost = COST_UNITS.step;
  for (const rule of segment.rules)
    for (const clause of rule.clauses) cost += clauseCost(clause, patternSize);
  return cost;
}

/**
 * The cost of evaluating `key` (held as `graph` has it): its own cost, each flag of its
 * prerequisite graph once, and each segment any of them names once. Unknown flags and segments
 * cost nothing (they fail the evaluation at once). `segmentCosts` caches segment costs across calls.
 */
export function flagCost(
  key: string,
  graph: CostGraph,
  patternSize: PatternSize,
  segmentCosts: Map<string, number> = new Map(),
): number {
  const flags = new Set<string>([key]);
  const segments = new Set<string>();
  let cost = 0;
  for (const current of flags) {
    const flag = graph.flag(current);
    if (!flag) continue;
    const own = ownCosts.get(flag) ?? remember(flag, patternSize);
    cost += own.cost;
    for (const s of own.segments) segments.add(s);
    for (const p of flag.prerequisites ?? []) flags.add(p.flag);
  }
  for (const s of segments) {
    let c = segmentCosts.get(s);
    if (c === undefined) {
      const segment = graph.segment(s);
      c = segment ? segmentCost(segment, patternSize) : 0;
      segmentCosts.set(s, c);
    }
    cost += c;
  }
  return cost;
}
