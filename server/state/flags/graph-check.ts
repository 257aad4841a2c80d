/**
 * The cost model enforced when saved (`docs/protocol.md` §12.10): a flag or segment write is
 * refused `400 VALIDATION_ERROR` when it would make any flag of the environment cost more than
 * the budget per evaluation, or make a prerequisite chain deeper than the limit, counted through
 * the whole graph in both directions (a flag added under a chain makes the flags above it deeper).
 * Decided against the environment as the write finds it, with the change in place, in time
 * linear in the flags and segments it touches.
 */

import { parse } from '../../../src/core/pattern/parse.js';
import { type CostGraph, flagCost, type PatternSize } from '../../../src/core/targeting/cost.js';
import { TARGETING_LIMITS } from '../../../src/core/targeting/validate-shape.js';
import { validationError } from '../../errors.js';
import type { Environment, StoredFlag, StoredSegment } from '../kernel/model.js';
import { segmentUsers } from './targeting.js';

/** The most a flag may cost per evaluation, in the model's units (about 5 ns each). */
export const COST_BUDGET = 10_000;

/**
 * The most an environment's flags may cost together: one bulk evaluation (OFREP) of all of them,
 * about 30-50 ms of server CPU for an ordinary context (`npm run bench cost`).
 */
export const ENVIRONMENT_COST_BUDGET = 5_000_000;

const patternSizes = new Map<string, number>();

/** A pattern's program size in instructions, remembered for the patterns seen last. */
export const patternSize: PatternSize = (pattern, caseInsensitive) => {
  const key = `${caseInsensitive ? 'i' : 's'}${pattern}`;
  let size = patternSizes.get(key);
  if (size === undefined) {
    try {
      size = parse(pattern, caseInsensitive).code.length / 3;
    } catch {
      size = 0;
    }
    if (patternSizes.size >= 1000) patternSizes.clear();
    patternSizes.set(key, size);
  }
  return size;
};

/** The environment with one flag or segment as the write would leave it. */
function graphOf(
  env: Environment,
  flag: StoredFlag | undefined,
  segment: StoredSegment | undefined,
): CostGraph & { prerequisitesOf(key: string): readonly string[] } {
  const flagOf = (key: string) => (flag && key === flag.key ? flag : env.flags.get(key));
  return {
    flag: flagOf,
    segment: (key) => (segment && key === segment.key ? segment : env.segments.get(key)),
    prerequisitesOf: (key) => flagOf(key)?.prerequisites?.map((p) => p.flag) ?? [],
  };
}

/** Flags that list each flag as a prerequisite (as the environment holds them, `changed` as it will be). */
function dependentsIndex(env: Environment, changed: StoredFlag | undefined): Map<string, string[]> {
  const index = new Map<string, string[]>();
  const flags = [...env.flags.values()].map((stored) =>
    changed && stored.key === changed.key ? changed : stored,
  );
  if (changed && !env.flags.has(changed.key)) flags.push(changed);
  for (const flag of flags)
    for (const p of flag.prerequisites ?? []) {
      const list = index.get(p.flag);
      if (list) list.push(flag.key);
      else index.set(p.flag, [flag.key]);
    }
  return index;
}

/** `start` and every flag that depends on it, through prerequisites. */
function withDependents(start: Iterable<string>, dependents: Map<string, string[]>): Set<string> {
  const out = new Set<string>(start);
  for (const key of out) for (const d of dependents.get(key) ?? []) out.add(d);
  return out;
}

/** The longest prerequisite chain below each flag asked, memoised over the graph. */
function heights(graph: ReturnType<typeof graphOf>): (key: string) => number {
  const memo = new Map<string, number>();
  const height = (key: string): number => {
    const known = memo.get(key);
    if (known !== undefined) return known;
    // A cycle is refused by the prerequisites' own validation; here it just ends the chain.
    memo.set(key, 0);
    let deepest = 0;
    for (const p of graph.prerequisitesOf(key)) deepest = Math.max(deepest, 1 + height(p));
    memo.set(key, deepest);
    return deepest;
  };
  return height;
}

const formatted = (n: number) => n.toLocaleString('en-US');

/** Each flag's cost in `graph`, computed once per check (segments too) whoever asks. */
function costs(graph: ReturnType<typeof graphOf>): (key: string) => number {
  const segmentCosts = new Map<string, number>();
  const known = new Map<string, number>();
  return (key) => {
    let cost = known.get(key);
    if (cost === undefined) {
      cost = flagCost(key, graph, patternSize, segmentCosts);
      known.set(key, cost);
    }
    return cost;
  };
}

/**
 * Refuses (`400 VALIDATION_ERROR`) the write of `flag` when it, or a flag that depends on it,
 * would cost more than the budget or nest prerequisites deeper than the limit, or the
 * environment's flags together would cost more than theirs.
 */
export function checkFlagGraph(env: Environment, flag: StoredFlag): void {
  const graph = graphOf(env, flag, undefined);
  const costOf = costs(graph);
  const affected = withDependents([flag.key], dependentsIndex(env, flag));
  check(graph, costOf, affected, flag.key, (key) =>
    key === flag.key ? (flag.prerequisites?.length ? 'prerequisites' : 'rules') : 'prerequisites',
  );
  checkEnvironment(env, costOf, env.flags.has(flag.key) ? [] : [flag.key]);
}

/** Refuses the write of `segment` when a flag that uses it (or depends on one that does) would cost too much. */
export function checkSegmentGraph(env: Environment, segment: StoredSegment): void {
  const users = segmentUsers(env, segment.key);
  if (users.length === 0) return;
  const graph = graphOf(env, undefined, segment);
  const costOf = costs(graph);
  check(graph, costOf, withDependents(users, dependentsIndex(env, undefined)), undefined, () => 'rules');
  checkEnvironment(env, costOf, []);
}

/** Refuses a write that would make every flag of the environment cost more together than its budget. */
function checkEnvironment(env: Environment, costOf: (key: string) => number, added: readonly string[]): void {
  let total = 0;
  for (const key of [...env.flags.keys(), ...added]) total += costOf(key);
  if (total > ENVIRONMENT_COST_BUDGET)
    throw validationError(
      `the environment's flags would cost ${formatted(total)} units together (one bulk evaluation), more than the budget of ${formatted(ENVIRONMENT_COST_BUDGET)} (docs/protocol.md §12.10); simplify or delete flags first`,
    );
}

function check(
  graph: ReturnType<typeof graphOf>,
  costOf: (key: string) => number,
  affected: Set<string>,
  self: string | undefined,
  pathOf: (key: string) => string,
): void {
  const height = heights(graph);
  const limit = TARGETING_LIMITS.prerequisiteDepth;
  for (const key of affected) {
    const h = height(key);
    if (h > limit)
      throw validationError(
        key === self
          ? `prerequisites: nest at most ${limit} deep, got ${h}`
          : `${pathOf(key)}: flag ${JSON.stringify(key)} depends on this change and its prerequisites would nest ${h} deep, more than ${limit}`,
      );
  }
  for (const key of affected) {
    const cost = costOf(key);
    if (cost > COST_BUDGET)
      throw validationError(
        key === self
          ? `${pathOf(key)}: the flag would cost ${formatted(cost)} units per evaluation, more than the budget of ${formatted(COST_BUDGET)} (rules, clauses, patterns, segments and prerequisites counted once each; docs/protocol.md §12.10)`
          : `${pathOf(key)}: flag ${JSON.stringify(key)} uses this and would cost ${formatted(cost)} units per evaluation, more than the budget of ${formatted(COST_BUDGET)} (docs/protocol.md §12.10)`,
      );
  }
}
