/**
 * Reading the audit log (`docs/protocol.md` §10.6, `audit.ts`): every environment's records and
 * the shared ones, merged newest first, filtered by project, actor and time. An environment's
 * records are named by its keys now (a rename renames its past); those of an environment
 * deleted, and of renames, by the keys they had.
 */
import type { AuditRecord } from '../../../src/core/wire/audit.js';
import type { MemoryState, StoredAuditRecord } from './model.js';

export interface AuditFilter {
  /** Only this project's records. */
  project?: string;
  /** Only this actor's, by id; a user's id finds their tokens' records too. */
  actor?: string;
  /** Only records at or after this time (epoch ms). */
  since?: number;
  limit: number;
}

interface Found {
  record: StoredAuditRecord;
  at: number;
  /** The record's place in its list: the later, the newer, among records of one time. */
  seq: number;
  /** The keys of the environment whose list holds it. */
  name?: { project: string; environment: string };
}

/** Whether `record` was made by `actor` (or by a token of that user). */
function byActor(record: StoredAuditRecord, actor: string): boolean {
  return record.actor.id === actor || record.actor.user?.id === actor;
}

/** The records `filter` asks for, newest first (by time, then by their order in their list). */
export function readAudit(db: MemoryState, filter: AuditFilter): AuditRecord[] {
  const found: Found[] = [];
  const consider = (list: readonly StoredAuditRecord[], name?: Found['name']) => {
    for (let seq = 0; seq < list.length; seq++) {
      const record = list[seq]!;
      if (filter.project !== undefined && (name?.project ?? record.project) !== filter.project) continue;
      if (filter.actor !== undefined && !byActor(record, filter.actor)) continue;
      const at = Date.parse(record.at);
      if (filter.since !== undefined && !(at >= filter.since)) continue;
      found.push({ record, at, seq, ...(name && { name }) });
    }
  };
  for (const env of db.values())
    if (env.audit && (filter.project === undefined || env.project === filter.project))
      consider(env.audit, { project: env.project, environment: env.environment });
  consider(db.audit);
  found.sort((a, b) => b.at - a.at || b.seq - a.seq);
  return found.slice(0, filter.limit).map(({ record, name }) => wire(record, name));
}

/** A record as the wire has it: named by its environment, without the internal `env`. */
function wire(record: StoredAuditRecord, name: Found['name']): AuditRecord {
  const { env: _env, ...rest } = record;
  if (!name) return rest;
  const { id, at, actor, ...facts } = rest;
  return { id, at, actor, ...name, ...facts };
}
