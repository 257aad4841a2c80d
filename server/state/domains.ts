/**
 * The state, composed (`docs/architecture.md`): the kernel (`kernel/`) with every domain, each
 * contributing its ops, how each changes memory, the changes it publishes and its parts of
 * snapshots (`kernel/domain.ts`). The one file that imports the kernel and every domain: the
 * server's composition root and the tests take the applier, `applyOp`, the snapshots and the
 * `Op` union from here.
 */

import type { LoadedState } from '../store/storage.js';
import { type AdminOp, type AdminSnapshot, adminDomain } from './admin/ops.js';
import { type ChangeOp, type ChangesSnapshot, changesDomain } from './changes/ops.js';
import { type CopyOp, copyDomain } from './copy/ops.js';
import { type FlagCommit, type FlagOp, type FlagsSnapshot, flagsDomain } from './flags/ops.js';
import { Applier as KernelApplier } from './kernel/applier.js';
import { Domains } from './kernel/domain.js';
import type { MemoryState } from './kernel/model.js';
import type { KernelOp } from './kernel/ops.js';
import * as snapshots from './kernel/snapshot.js';
import { type PeopleOp, type PeopleSnapshot, peopleDomain } from './people/ops.js';
import { type SegmentOp, type SegmentsSnapshot, segmentsDomain } from './segments/ops.js';
import type { UsageOp } from './usage/model.js';
import { type UsageSnapshotPart, usageDomain } from './usage/state.js';
import { type WebhookOp, type WebhooksSnapshot, webhooksDomain } from './webhooks/ops.js';

/** Every op the store records: the kernel's and each domain's. */
export type Op = KernelOp | FlagOp | SegmentOp | CopyOp | WebhookOp | AdminOp | UsageOp | PeopleOp | ChangeOp;

/** The domains, in the order their parts of a snapshot are written. */
export const DOMAINS = new Domains<Op, FlagCommit>([
  flagsDomain,
  segmentsDomain,
  copyDomain,
  webhooksDomain,
  adminDomain,
  usageDomain,
  peopleDomain,
  changesDomain,
]);

/** Applies one op to the in-memory state; used both live and when replaying the log. */
export function applyOp(db: MemoryState, op: Op): void {
  DOMAINS.apply(db, op);
}

/** The one way memory changes (`kernel/applier.ts`), with every domain. */
export class Applier extends KernelApplier<Op, FlagCommit> {
  constructor(state: MemoryState, onListenerError: (error: unknown) => void) {
    super(DOMAINS, state, onListenerError);
  }
}

/** One environment, as a snapshot holds it. */
export interface EnvSnapshot
  extends snapshots.KernelEnvSnapshot,
    FlagsSnapshot,
    SegmentsSnapshot,
    WebhooksSnapshot,
    UsageSnapshotPart,
    ChangesSnapshot {}

/** What spans environments, as a snapshot holds it: the part of scope `''`. */
export interface SharedSnapshot extends snapshots.KernelSharedSnapshot, AdminSnapshot, PeopleSnapshot {}

/** JSON form of the whole state, written by compaction. */
export interface SnapshotData extends SharedSnapshot {
  envs: EnvSnapshot[];
}

/** One scope's part of the snapshot (`scopeOf`): an environment's, or what spans them. */
export type ScopeSnapshot = EnvSnapshot | SharedSnapshot;

/** Remembers the state of one scope and answers a function that puts it back (`kernel/snapshot.ts`). */
export function captureScope(db: MemoryState, scope: string): () => void {
  return snapshots.captureScope(DOMAINS, db, scope);
}

/** The whole state (`kernel/snapshot.ts`). */
export function toSnapshot(db: MemoryState): SnapshotData {
  return snapshots.toSnapshot(DOMAINS, db) as SnapshotData;
}

/** Memory from a snapshot (`kernel/snapshot.ts`). */
export function fromSnapshot(data: SnapshotData): MemoryState {
  return snapshots.fromSnapshot(DOMAINS, data);
}

/** Memory as a storage loaded it (`kernel/snapshot.ts`). */
export function restoreState(
  loaded: LoadedState<Op>,
  historyLimit: number,
  historyBytes?: number,
): MemoryState {
  return snapshots.restoreState(DOMAINS, loaded, historyLimit, historyBytes);
}
