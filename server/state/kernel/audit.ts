/**
 * The audit log (`docs/protocol.md` §10.6): one record per committed change, across projects,
 * saying when, who, where, what, and the changed fields before and after. A record is derived
 * from the committed op as it is applied (`Domain.auditOf`, called by `Domains.apply` before the
 * op changes memory, live and on replay), so it is exactly as durable as the change and needs no
 * op of its own; it goes into the op's scope: the environment's list (`env.audit`), or the shared
 * one (`db.audit`). A failed group commit takes it back with the rest (`snapshot.ts`,
 * `captureScope`), and snapshots carry both lists.
 *
 * - Only ops stamped with a time (`at`; the services stamp it with the actor, `by`) are audited,
 *   and flag and segment changes (their own times, as their history was): an op written before
 *   the audit log existed has no record.
 * - Each record has an id that is the same on every instance and after restarts: a flag or
 *   segment change's, the environment's epoch and revision; any other's, a digest of the op (its
 *   canonical JSON, so Postgres's `jsonb` reorders nothing). A list keeps at most one record of an
 *   id, so applying an op again (a replayed suffix of the log) adds nothing.
 * - Each list holds at most `db.auditLimit` records and `db.auditBytes` of their JSON, oldest
 *   dropped first; a changed field over 4 KiB of JSON reads `{truncated: true, bytes}`.
 * - An environment deleted hands its records to the shared list, named as it was then
 *   (`keepDeletedAudit`): what was done there stays readable after it is gone.
 * - No secret is ever a field of a record: the domains name what they record, never a key, a
 *   digest, a token, a webhook secret, a session id or a password hash.
 */
import { createHash } from 'node:crypto';
import { canonicalJson, sameJson } from '../../../src/core/canonical-json.js';
import { actorOf, SYSTEM_ACTOR } from './actors.js';
import { boundList, pushCounted, recount, tallyOf } from './bounded-list.js';
import { nameOf } from './env-names.js';
import type { Actor, Environment, MemoryState, StoredAuditRecord } from './model.js';
import type { KernelOp } from './ops.js';

export type { StoredAuditRecord } from './model.js';

/** Who made an op's change and when: what a service stamps on an op it commits for someone. */
export interface Stamp {
  by?: Actor;
  /** ISO 8601 time of the change. */
  at?: string;
}

/** A changed field over this many bytes of JSON is recorded as `{truncated: true, bytes}`. */
export const AUDIT_VALUE_BYTES = 4096;

type Fields = Record<string, unknown>;

/** The parts of a record its domain decides. */
export interface AuditFacts {
  action: string;
  project?: string;
  environment?: string;
  target?: { kind: string; key: string };
  before?: Fields;
  after?: Fields;
}

/** `fields` with every value over `AUDIT_VALUE_BYTES` of JSON truncated; `undefined` when empty. */
function clipped(fields: Fields | undefined): Fields | undefined {
  if (!fields) return undefined;
  const out: Fields = {};
  let any = false;
  for (const [field, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    const bytes = Buffer.byteLength(JSON.stringify(value));
    out[field] = bytes > AUDIT_VALUE_BYTES ? { truncated: true, bytes } : value;
    any = true;
  }
  return any ? out : undefined;
}

/** A record of id `id`, made at `at` by `actor` (its stored form read as today's). */
export function auditRecord(id: string, at: string, actor: unknown, facts: AuditFacts): StoredAuditRecord {
  // Fields in the order the wire lists them.
  const record = { id, at, actor: actor === undefined ? SYSTEM_ACTOR : actorOf(actor) } as StoredAuditRecord;
  if (facts.project !== undefined) record.project = facts.project;
  if (facts.environment !== undefined) record.environment = facts.environment;
  record.action = facts.action;
  if (facts.target) record.target = facts.target;
  const before = clipped(facts.before);
  const after = clipped(facts.after);
  if (before) record.before = before;
  if (after) record.after = after;
  return record;
}

/** The op's own identity: a digest of its canonical JSON (`part` tells apart several records of one op). */
export function opId(op: object, part?: string): string {
  const digest = createHash('sha256').update(canonicalJson(op)).digest('hex').slice(0, 24);
  return part === undefined ? `a${digest}` : `a${digest}.${part}`;
}

/** The record of a stamped op (`undefined` for an op without `at`: written before the audit log). */
export function stampedRecord(
  op: Stamp & object,
  facts: AuditFacts | undefined,
  part?: string,
): StoredAuditRecord | undefined {
  if (op.at === undefined || facts === undefined) return undefined;
  return auditRecord(opId(op, part), op.at, op.by, facts);
}

/** The fields of `fields` whose values differ between `before` and `after`, each side's. */
export function changedFields(
  fields: readonly string[],
  before: Fields,
  after: Fields,
): { before: Fields; after: Fields } | undefined {
  const out = { before: {} as Fields, after: {} as Fields };
  let any = false;
  for (const field of fields) {
    if (sameJson(before[field] ?? null, after[field] ?? null)) continue;
    out.before[field] = before[field] ?? null;
    out.after[field] = after[field] ?? null;
    any = true;
  }
  return any ? out : undefined;
}

/** Picks `fields` of `value` that are set. */
export function pick(value: object, fields: readonly string[]): Fields {
  const out: Fields = {};
  for (const field of fields) {
    const v = (value as Fields)[field];
    if (v !== undefined) out[field] = v;
  }
  return out;
}

/** A record's id: a list holds each once (`appendAudit`). */
const idOf = (record: StoredAuditRecord): string => record.id;

/** The bounds of every audit list. */
export type AuditBounds = Pick<MemoryState, 'auditLimit' | 'auditBytes'>;

/** Drops the oldest records past `auditLimit`, then past `auditBytes` of JSON; the newest always stays. */
export function boundAudit(list: StoredAuditRecord[], bounds: AuditBounds): void {
  boundList(list, bounds.auditLimit, bounds.auditBytes, idOf);
}

/** Appends the records whose ids `list` does not hold yet, then holds it to its bounds. */
export function appendAudit(
  list: StoredAuditRecord[],
  records: readonly StoredAuditRecord[],
  bounds: AuditBounds,
): void {
  const { ids } = tallyOf(list, idOf);
  let added = false;
  for (const record of records) {
    if (ids!.has(record.id)) continue;
    pushCounted(list, record, idOf);
    added = true;
  }
  if (added) boundAudit(list, bounds);
}

/**
 * Files the records of an op of `scope`: into its environment's list, or the shared one (scope
 * `''`, or an environment the op deleted: then marked with its id, `keepDeletedAudit`).
 */
export function recordAudit(db: MemoryState, scope: string, records: readonly StoredAuditRecord[]): void {
  if (records.length === 0) return;
  const env = scope === '' ? undefined : db.get(scope);
  if (scope === '') appendAudit(db.audit, records, db);
  else if (env) {
    env.audit ??= [];
    appendAudit(env.audit, records, db);
  } else
    appendAudit(
      db.audit,
      records.map((r) => ({ ...r, env: scope })),
      db,
    );
}

/** An environment's records as the shared list keeps them once it is gone: named as it was, with its id. */
export function keepDeletedAudit(db: MemoryState, env: Environment): void {
  const records = env.audit ?? [];
  delete env.audit;
  const named = records.map((r) => ({
    ...r,
    project: r.project ?? env.project,
    environment: r.environment ?? env.environment,
    env: env.id,
  }));
  appendAudit(db.audit, named, db);
}

/** Removes from the shared list, in place, the records of environment `scope` not in `kept`. */
export function dropDeletedAudit(db: MemoryState, scope: string, kept: ReadonlySet<StoredAuditRecord>): void {
  const list = db.audit;
  let j = 0;
  for (const record of list) if (record.env !== scope || kept.has(record)) list[j++] = record;
  if (j === list.length) return;
  list.length = j;
  recount(list);
}

/** Puts `from`'s records into `list` (the same array: whatever holds it keeps seeing them). */
export function refillAudit(list: StoredAuditRecord[], from: readonly StoredAuditRecord[]): void {
  list.length = 0;
  for (const record of from) list.push(record);
  recount(list);
}

/** A generated key's id, as the key ring names it (`../admin/key-ring.ts`: `key_` and 16 hex of its SHA-256). */
const generatedKeyId = (key: string): string =>
  `key_${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;

/** The audit of the kernel's own ops: an environment made, renamed, deleted; a generated key revoked. */
export function kernelAuditOf(db: MemoryState, op: KernelOp): StoredAuditRecord | undefined {
  switch (op.t) {
    case 'env': {
      const env = db.get(op.id);
      const target = { kind: 'environment', key: nameOf(op) };
      if (!env || (op.source === 'dashboard' && env.source !== 'dashboard'))
        return stampedRecord(op, {
          action: 'environment.created',
          target,
          after: { project: op.project, environment: op.environment, source: op.source ?? 'default' },
        });
      if (env.epoch !== op.epoch) return undefined;
      // Fewer generated keys: one revoked (`AdminService.revokeKey`).
      const kept = new Set(op.keys.map((k) => k.key));
      const gone = env.generatedKeys.find((k) => !kept.has(k.key));
      if (!gone) return undefined;
      return stampedRecord(op, {
        action: 'apiKey.revoked',
        target: { kind: 'apiKey', key: generatedKeyId(gone.key) },
        before: { access: gone.access, hint: `fw_live_…${gone.key.slice(-4)}` },
      });
    }
    case 'env-name': {
      const env = db.get(op.id);
      if (!env || env.epoch !== op.epoch) return undefined;
      if (env.project === op.project && env.environment === op.environment) return undefined;
      return stampedRecord(op, {
        action: 'environment.renamed',
        project: op.project,
        environment: op.environment,
        target: { kind: 'environment', key: nameOf(op) },
        before: { project: env.project, environment: env.environment },
        after: { project: op.project, environment: op.environment },
      });
    }
    case 'env-del': {
      const env = db.get(op.env);
      if (!env) return undefined;
      return stampedRecord(op, {
        action: 'environment.deleted',
        project: env.project,
        environment: env.environment,
        target: { kind: 'environment', key: nameOf(env) },
        before: { project: env.project, environment: env.environment, flags: env.flags.size },
      });
    }
  }
}
