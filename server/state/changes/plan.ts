/**
 * What a change request's changes commit (`docs/protocol.md` §10.7), decided against an
 * environment as it is: each change planned by the flag or segment service's own planner (the
 * very checks a direct write makes), against a view of the environment that the changes before
 * it have moved, so a request may create a segment and then a flag whose rules name it. Pure:
 * the service runs it under the environment's lock and commits the ops in one entry, all or none.
 */
import { validateCreateFlag, validateUpdateFlag } from '../../../src/core/validation.js';
import type { ChangeConflict, ChangePreview } from '../../../src/core/wire/changes.js';
import { ApiError, validationError } from '../../errors.js';
import type { FlagService, FlagServiceOp } from '../flags/flag-service.js';
import { historyEntry, segmentHistoryEntry } from '../flags/history.js';
import type { Plan } from '../kernel/ledger.js';
import type { Actor, ChangeRequestRef, Environment, StoredChangeRequest } from '../kernel/model.js';
import type { SegmentService, SegmentServiceOp } from '../segments/segment-service.js';

/** The ops a request's changes commit: flags' and segments', with their deliveries. */
export type ChangePlanOp = FlagServiceOp | SegmentServiceOp;

type Change = StoredChangeRequest['changes'][number];

/** The services whose planners decide each change. */
export interface Planners {
  flags: FlagService;
  segments: SegmentService;
}

/** The version a change's target is at in `env`; `null` when there is none. */
export function versionOf(env: Environment, change: Pick<Change, 'kind' | 'key'>): number | null {
  const map = change.kind === 'flag' ? env.flags : env.segments;
  return map.get(change.key)?.version ?? null;
}

/**
 * The targets that moved since the changes were written: a creation expects none, an update or a
 * deletion the version it names.
 */
export function conflictsOf(env: Environment, changes: readonly Change[]): ChangeConflict[] {
  const conflicts: ChangeConflict[] = [];
  for (const change of changes) {
    const expected = change.action === 'create' ? null : (change.baseVersion ?? null);
    const current = versionOf(env, change);
    if (current !== expected)
      conflicts.push({ kind: change.kind, key: change.key, baseVersion: expected, currentVersion: current });
  }
  return conflicts;
}

/** `409 CONFLICT` naming what moved, with the list (`conflicts`). */
export function conflictError(conflicts: ChangeConflict[]): ApiError {
  const moved = conflicts.map((c) => {
    const what = `${c.kind} ${JSON.stringify(c.key)}`;
    if (c.baseVersion === null) return `${what} exists now (version ${c.currentVersion})`;
    if (c.currentVersion === null)
      return `${what} is gone (the change was written against version ${c.baseVersion})`;
    return `${what} is at version ${c.currentVersion}, not ${c.baseVersion}`;
  });
  return new ApiError(
    409,
    'CONFLICT',
    `changed since the request was written: ${moved.join('; ')}; nothing was written: rebase the request (read what moved, then review it again)`,
    undefined,
    { conflicts },
  );
}

/** What planning a request's changes gives: the ops, and what each change does, field by field. */
export interface PlannedChanges {
  ops: ChangePlanOp[];
  preview: ChangePreview[];
}

/**
 * Plans every change in order against `env` as it is, as `author` made them; `ref` marks each
 * flag and segment op with the request it comes from (its history entry names it). Throws, the
 * message naming the change (`changes[1]: ...`), when one would be refused.
 */
export function planChanges(
  env: Environment,
  changes: readonly Change[],
  author: Actor,
  planners: Planners,
  ref?: ChangeRequestRef,
): PlannedChanges {
  const view: Environment = { ...env, flags: new Map(env.flags), segments: new Map(env.segments) };
  const ops: ChangePlanOp[] = [];
  const preview: ChangePreview[] = [];
  changes.forEach((change, i) => {
    const planned = named(i, change, () => planOne(view, change, author, planners));
    const entry = { kind: change.kind, key: change.key, action: change.action, changes: [] } as ChangePreview;
    for (const op of planned.ops) {
      switch (op.t) {
        case 'flag':
        case 'flag-del': {
          const key = op.t === 'flag' ? op.flag.key : op.key;
          const after = op.t === 'flag' ? op.flag : undefined;
          entry.changes = historyEntry(op.rev, '', view.flags.get(key), after, author).changes;
          if (after) view.flags.set(key, after);
          else view.flags.delete(key);
          view.revision = op.rev;
          if (ref) op.changeRequest = ref;
          break;
        }
        case 'segment':
        case 'segment-del': {
          const key = op.t === 'segment' ? op.segment.key : op.key;
          const after = op.t === 'segment' ? op.segment : undefined;
          entry.changes = segmentHistoryEntry(op.rev, '', view.segments.get(key), after, author).changes;
          if (after) view.segments.set(key, after);
          else view.segments.delete(key);
          view.revision = op.rev;
          if (ref) op.changeRequest = ref;
          break;
        }
      }
      ops.push(op);
    }
    preview.push(entry);
  });
  return { ops, preview };
}

/** One change's plan, by the service of its kind. */
function planOne(
  view: Environment,
  change: Change,
  author: Actor,
  planners: Planners,
): Plan<unknown, ChangePlanOp> {
  const body = change.body ?? {};
  if (change.action !== 'delete' && body.key !== undefined && body.key !== change.key)
    throw validationError(`"body.key" must be ${JSON.stringify(change.key)}, the change's key, or left out`);
  if (change.action === 'delete' && change.body !== undefined)
    throw validationError('"body" must be left out of a deletion');
  if (change.kind === 'flag') {
    switch (change.action) {
      case 'create': {
        const input = validateCreateFlag({ ...body, key: change.key });
        if (!input.ok) throw validationError(input.message);
        return planners.flags.planCreate(view, input.value, author);
      }
      case 'update':
        return planners.flags.planUpdate(
          view,
          change.key,
          (type) => {
            const patch = validateUpdateFlag(body, type);
            if (!patch.ok) throw validationError(patch.message);
            return patch.value;
          },
          author,
        );
      case 'delete':
        return planners.flags.planDelete(view, change.key, author);
    }
  }
  switch (change.action) {
    case 'create':
      return planners.segments.planCreate(view, { ...body, key: change.key }, author);
    case 'update':
      return planners.segments.planUpdate(view, change.key, body, author);
    case 'delete':
      return planners.segments.planDelete(view, change.key, author);
  }
}

/** Runs `plan`, a refusal's message naming change `i`. */
function named<T>(i: number, change: Change, plan: () => T): T {
  try {
    return plan();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const what = `changes[${i}] (${change.action} ${change.kind} ${JSON.stringify(change.key)})`;
    throw new ApiError(error.status, error.code, `${what}: ${error.message}`, error.headers, error.details);
  }
}

/** The changes with every `baseVersion` the version its target is at now (a rebase; creations have none). */
export function rebased(env: Environment, changes: readonly Change[]): Change[] {
  return changes.map((change) => {
    const { baseVersion: _, ...rest } = change;
    const current = versionOf(env, change);
    return change.action === 'create' || current === null ? rest : { ...rest, baseVersion: current };
  });
}
