/**
 * Copying flags from one environment to another (`docs/protocol.md` §10.3), decided against
 * both as they are: per flag `created`, `changed` (with the field-level differences, as the
 * history would record them), `unchanged`, or `conflict` (with the reason); per segment the
 * copied rules name, `created` (copied with them) or `kept` (the target's own, never
 * overwritten). Pure: the service runs it under the target's lock and commits its ops.
 *
 * What a copy carries is the flag's definition: `enabled`, the percentage, the description,
 * and every targeting field (variants, off variant, fallthrough, targets, rules with their ids,
 * prerequisites, salt: the same salt buckets users the same way in both). A flag's type never
 * changes, so a flag of the target of another type is a conflict; so is a copied flag whose
 * prerequisites the target would not have, and one whose copy would remove a variant that a flag
 * of the target the copy leaves as it is lists as a prerequisite. A copy never deletes a flag.
 */
import { type Clause, TARGETING_FIELDS } from '../../../src/core/targeting/types.js';
import {
  type PatternCheck,
  TargetingInvalid,
  type TargetingRefs,
  validateFlagTargeting,
} from '../../../src/core/targeting/validate.js';
import { flagDeliveries } from '../flags/events.js';
import { historyEntry } from '../flags/history.js';
import { type FlagOp, flagCommitOf } from '../flags/ops.js';
import {
  CHANGEABLE_FIELDS,
  prerequisiteUsers,
  removedVariants,
  sameJson,
  variantNames,
} from '../flags/targeting.js';
import { nameOf } from '../kernel/env-names.js';
import { newRuleId } from '../kernel/ids.js';
import type { Actor, Environment, HistoryEntry, StoredFlag, StoredSegment } from '../kernel/model.js';
import { segmentDeliveries } from '../segments/events.js';
import { type SegmentOp, segmentCommitOf } from '../segments/ops.js';
import type { WebhookOp } from '../webhooks/ops.js';

/** The ops a copy commits to its target: segments and flags, each with its deliveries. */
export type CopyPlanOp = FlagOp | SegmentOp | WebhookOp;

export interface FlagCopy {
  key: string;
  status: 'created' | 'changed' | 'unchanged' | 'conflict';
  /** What the copy changes in the target; for a creation every field, `from: null`. */
  changes: HistoryEntry['changes'];
  /** Why the flag cannot be copied (`conflict` only). */
  reason?: string;
}

export interface SegmentCopy {
  key: string;
  /** `created`: copied with the flags; `kept`: the target has one of that key, left as it is. */
  status: 'created' | 'kept';
  /** Whether a kept segment is defined otherwise in the source (other people, other rules). */
  differs: boolean;
}

export interface EnvRef {
  project: string;
  environment: string;
  revision: number;
}

export interface CopyPreview {
  from: EnvRef;
  to: EnvRef;
  flags: FlagCopy[];
  segments: SegmentCopy[];
}

export interface CopyContext {
  source: Environment;
  target: Environment;
  /** The flags to copy, as given (each must be a flag of the source). */
  keys: readonly string[];
  patterns: PatternCheck | undefined;
  actor: Actor;
  now: string;
}

const envRef = (env: Environment): EnvRef => ({
  project: env.project,
  environment: env.environment,
  revision: env.revision,
});

/** The preview of copying `keys`, and the ops that make it (in one entry of the target). */
export function planCopy(ctx: CopyContext): { preview: CopyPreview; ops: CopyPlanOp[] } {
  const { source, target, keys } = ctx;
  const sourceOf = (key: string) => source.flags.get(key)!;
  const reasons = new Map<string, string>();
  for (const key of keys) {
    const problem = shapeConflict(sourceOf(key), target.flags.get(key), nameOf(target));
    if (problem) reasons.set(key, problem);
  }
  // A flag that cannot be copied leaves the target's own in place, which a flag depending on
  // it may not accept: validate again until nothing more falls out.
  const afters = new Map<string, StoredFlag>();
  for (let changed = true; changed; ) {
    changed = false;
    afters.clear();
    for (const key of keys)
      if (!reasons.has(key)) afters.set(key, copied(sourceOf(key), target.flags.get(key), ctx.now));
    const refs = mergedRefs(source, target, afters);
    for (const [key, after] of afters) {
      const problem =
        targetingConflict(after, refs, ctx.patterns) ?? dependentConflict(target, afters, after);
      if (problem) {
        reasons.set(key, problem);
        changed = true;
      }
    }
  }

  const flags: FlagCopy[] = keys.map((key) => {
    const reason = reasons.get(key);
    if (reason) return { key, status: 'conflict', changes: [], reason };
    const before = target.flags.get(key);
    const after = afters.get(key)!;
    if (before && CHANGEABLE_FIELDS.every((field) => sameJson(after[field], before[field])))
      return { key, status: 'unchanged', changes: [] };
    const { changes } = historyEntry(0, ctx.now, before, after, ctx.actor);
    return { key, status: before ? 'changed' : 'created', changes };
  });

  const segments: SegmentCopy[] = [];
  for (const key of segmentsNamed([...afters.values()])) {
    const mine = target.segments.get(key);
    const theirs = source.segments.get(key);
    segments.push(
      mine
        ? { key, status: 'kept', differs: !sameSegment(mine, theirs) }
        : { key, status: 'created', differs: false },
    );
  }

  const preview = { from: envRef(source), to: envRef(target), flags, segments };
  return { preview, ops: opsOf(ctx, preview, afters) };
}

/** The ops of a copy: the segments it brings, then its flags, prerequisites first, one revision each. */
function opsOf(
  ctx: CopyContext,
  preview: CopyPreview,
  afters: ReadonlyMap<string, StoredFlag>,
): CopyPlanOp[] {
  const { source, target, actor, now } = ctx;
  const copiedFrom = nameOf(source);
  const ops: CopyPlanOp[] = [];
  let rev = target.revision;
  for (const { key, status } of preview.segments) {
    if (status !== 'created') continue;
    rev += 1;
    const segment: StoredSegment = {
      ...clone(source.segments.get(key)!),
      version: rev,
      createdAt: now,
      updatedAt: now,
    };
    const op = { t: 'segment', env: target.id, rev, segment, by: actor, copiedFrom } as const;
    ops.push(op, ...segmentDeliveries(segmentCommitOf(target, op, null)));
  }
  const written = preview.flags.filter((f) => f.status === 'created' || f.status === 'changed');
  for (const key of prerequisitesFirst(
    written.map((f) => f.key),
    afters,
  )) {
    rev += 1;
    const flag = { ...afters.get(key)!, version: rev };
    const op = { t: 'flag', env: target.id, rev, flag, by: actor, copiedFrom } as const;
    ops.push(op, ...flagDeliveries(flagCommitOf(target, op, target.flags.get(key) ?? null)));
  }
  return ops;
}

/** Why the source's flag cannot replace the target's: another type. */
function shapeConflict(from: StoredFlag, into: StoredFlag | undefined, target: string): string | undefined {
  if (!into) return undefined;
  if (into.type !== from.type)
    return `it is a ${into.type} flag in ${target} and a ${from.type} flag here; a flag's type never changes`;
  return undefined;
}

/**
 * Why the copy of `after` would break a flag of the target it does not copy: it removes a
 * variant that flag lists as a prerequisite (the copied flags are validated themselves).
 */
function dependentConflict(
  target: Environment,
  afters: ReadonlyMap<string, StoredFlag>,
  after: StoredFlag,
): string | undefined {
  const users: string[] = [];
  for (const variant of removedVariants(target.flags.get(after.key)?.variants, after.variants))
    for (const other of prerequisiteUsers(target, after.key, variant))
      if (!afters.has(other.key))
        users.push(`variant ${JSON.stringify(variant)} by flag ${JSON.stringify(other.key)}`);
  if (!users.length) return undefined;
  return `it would remove variants that ${nameOf(target)} uses as prerequisites (${users.join(', ')}); copy those flags too, or change them there first`;
}

/** The source's flag as the target would hold it (its own `createdAt` kept). */
function copied(from: StoredFlag, into: StoredFlag | undefined, now: string): StoredFlag {
  const source = clone(from);
  const after: StoredFlag = into ? { ...into } : { ...source, createdAt: now };
  after.enabled = source.enabled;
  after.description = source.description;
  if (source.type === 'rollout') after.percentage = source.percentage ?? 0;
  const fields = after as unknown as Record<string, unknown>;
  for (const field of TARGETING_FIELDS) {
    if (source[field] === undefined) delete fields[field];
    else fields[field] = source[field];
  }
  after.updatedAt = now;
  return after;
}

/** The target as it would be with `afters`, for validation; segments the copy brings count. */
function mergedRefs(
  source: Environment,
  target: Environment,
  afters: ReadonlyMap<string, StoredFlag>,
): TargetingRefs {
  const flagOf = (key: string) => afters.get(key) ?? target.flags.get(key);
  return {
    variantsOf: (key) => {
      const flag = flagOf(key);
      return flag && variantNames(flag);
    },
    prerequisitesOf: (key) => flagOf(key)?.prerequisites ?? [],
    hasSegment: (key) => target.segments.has(key) || source.segments.has(key),
  };
}

/** Why the flag's targeting does not hold in the target, by the same validation as a write. */
function targetingConflict(
  flag: StoredFlag,
  refs: TargetingRefs,
  patterns: PatternCheck | undefined,
): string | undefined {
  const body: Record<string, unknown> = {};
  for (const field of TARGETING_FIELDS) if (flag[field] !== undefined) body[field] = flag[field];
  try {
    validateFlagTargeting(
      body,
      { key: flag.key, type: flag.type, variants: variantNames(flag) },
      refs,
      patterns,
      newRuleId,
    );
    return undefined;
  } catch (error) {
    if (error instanceof TargetingInvalid) return `in the target, ${error.message}`;
    throw error;
  }
}

/** The segments the flags' rules name, sorted. */
function segmentsNamed(flags: readonly StoredFlag[]): string[] {
  const keys = new Set<string>();
  for (const flag of flags)
    for (const rule of flag.rules ?? [])
      for (const clause of rule.clauses as Clause[])
        if (clause.op === 'inSegment') for (const value of clause.values) keys.add(String(value));
  return [...keys].sort();
}

const SEGMENT_FIELDS = ['included', 'excluded', 'rules'] as const;

const sameSegment = (a: StoredSegment, b: StoredSegment | undefined): boolean =>
  b !== undefined && SEGMENT_FIELDS.every((field) => sameJson(a[field], b[field]));

/** `keys` ordered so that a flag comes after the copied flags it lists as prerequisites. */
function prerequisitesFirst(keys: readonly string[], afters: ReadonlyMap<string, StoredFlag>): string[] {
  const wanted = new Set(keys);
  const out: string[] = [];
  const visit = (key: string) => {
    if (!wanted.delete(key)) return;
    for (const p of afters.get(key)?.prerequisites ?? []) visit(p.flag);
    out.push(key);
  };
  for (const key of keys) visit(key);
  return out;
}

const clone = <T>(value: T): T => structuredClone(value);
