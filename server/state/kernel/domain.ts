/**
 * How a domain plugs into the kernel (`docs/architecture.md`): the kinds of its ops and how each
 * changes memory, the change an op publishes, and its parts of snapshots. The kernel imports no
 * domain: its applier (`applier.ts`) and snapshots (`snapshot.ts`) take the table of domains
 * (`Domains`), which is assembled once, with every domain, in `../domains.ts`.
 */
import { isObject } from '../../../src/core/is-object.js';
import { keepDeletedAudit, kernelAuditOf, recordAudit } from './audit.js';
import type { Environment, MemoryState, StoredAuditRecord } from './model.js';
import { applyKernelOp, type BaseOp, isKernelOp, scopeOf } from './ops.js';

/** Fields of a snapshot piece, as read back from JSON. */
export type Piece = Record<string, unknown>;

/** What a domain contributes to the kernel; every part but its ops is optional. */
export interface Domain<O extends BaseOp = BaseOp, C = never> {
  /** The kinds (`t`) of the domain's ops: no two domains, nor the kernel, share one. */
  readonly kinds: readonly O['t'][];
  /** Applies one of its ops to memory, live and on replay; an op applied twice changes nothing more. */
  apply(db: MemoryState, op: O): void;
  /**
   * Whether `op` reaches memory only once its entry is durable, when the applier publishes it,
   * rather than as it is applied (`applier.ts`); a failed commit then has nothing to take back.
   */
  whenDurable?(op: O): boolean;
  /**
   * The audit records of `op` (`audit.ts`), read before it is applied (so `before` is memory's),
   * live and on replay; `undefined` or `[]`: none. A record's id is the same wherever and however
   * often the op is applied, so a list holds it once.
   */
  auditOf?(db: MemoryState, op: O): StoredAuditRecord | readonly StoredAuditRecord[] | undefined;
  /** What `op` changes, for the applier's change listeners, read before it is applied; `undefined`: nothing. */
  changeOf?(db: MemoryState, op: O): C | undefined;
  /**
   * Remembers the domain's part of scope `scope` (an environment's id, or `''`) and answers a
   * function that puts it back (`captureScope`: a group commit that failed).
   */
  capture?(db: MemoryState, scope: string): () => void;
  /** The domain's fields of an environment's snapshot. */
  envPart?(env: Environment): object;
  /** Throws, saying what is wrong, unless the domain's fields of an environment's snapshot have their shape. */
  checkEnvPart?(piece: Piece): void;
  /** Sets the domain's part of `env` from its snapshot (checked by `checkEnvPart`). */
  envFromPart?(env: Environment, piece: Piece): void;
  /**
   * Holds a restored environment's part to its bounds, before the journal's entries are applied
   * (`restoreState`); throws, saying what cannot be read, to leave the environment not restored.
   */
  restored?(env: Environment, db: MemoryState): void;
  /** The domain's fields of the snapshot of what spans environments (scope `''`). */
  sharedPart?(db: MemoryState): object;
  /** Sets the domain's part of what spans environments from the snapshot. */
  sharedFromPart?(db: MemoryState, data: Piece): void;
}

/**
 * The kernel's table of domains: which applies each op, and the parts they add to snapshots.
 * `O` is every op (the kernel's and the domains'), `C` the change the applier publishes.
 */
export class Domains<O extends BaseOp, C> {
  /** The domains, in the order their parts are written and read. */
  readonly list: ReadonlyArray<Domain<BaseOp, C>>;
  readonly #byKind = new Map<string, Domain<BaseOp, C>>();

  constructor(domains: ReadonlyArray<Domain<BaseOp, C>>) {
    this.list = domains;
    for (const domain of domains)
      for (const kind of domain.kinds) {
        if (this.#byKind.has(kind) || isKernelOp({ t: kind }))
          throw new Error(`state: two handlers of op ${JSON.stringify(kind)}`);
        this.#byKind.set(kind, domain);
      }
  }

  /**
   * Applies one op to the in-memory state; used both live and when replaying the log. An op of
   * no known kind changes nothing. Its audit records (`Domain.auditOf`) are read first and filed
   * once it is applied, in its scope (`audit.ts`); an environment deleted hands its records to
   * the shared list.
   */
  apply(db: MemoryState, op: O): void {
    const scope = scopeOf(op);
    if (isKernelOp(op)) {
      const record = kernelAuditOf(db, op);
      const deleted = op.t === 'env-del' ? db.get(scope) : undefined;
      applyKernelOp(db, op);
      if (deleted && !db.has(scope)) keepDeletedAudit(db, deleted);
      if (record) recordAudit(db, scope, [record]);
      return;
    }
    const domain = this.#byKind.get(op.t);
    if (!domain) return;
    const records = domain.auditOf?.(db, op);
    domain.apply(db, op);
    if (records) recordAudit(db, scope, Array.isArray(records) ? records : [records as StoredAuditRecord]);
  }

  /** Whether `op` reaches memory once durable (`Domain.whenDurable`). */
  whenDurable(op: O): boolean {
    return this.#byKind.get(op.t)?.whenDurable?.(op) ?? false;
  }

  /** The change `op` makes, read before it is applied (`Domain.changeOf`). */
  changeOf(db: MemoryState, op: O): C | undefined {
    return this.#byKind.get(op.t)?.changeOf?.(db, op);
  }
}

/**
 * Throws, saying what is wrong, unless `piece[field]` is a list (absent allowed when not
 * `required`) of records, each with a string `key` when one is named.
 */
export function checkList(piece: Piece, field: string, required: boolean, key?: string): void {
  const value = piece[field];
  if (value === undefined && !required) return;
  if (!Array.isArray(value)) throw new Error(`its "${field}" is not a list`);
  for (const item of value)
    if (!isObject(item) || (key !== undefined && typeof item[key] !== 'string'))
      throw new Error(`its "${field}" holds an entry without a "${key ?? 'value'}"`);
}

/** Puts `from`'s entries back into `map` (the same map: whatever holds it keeps seeing them). */
export function refill<K, V>(map: Map<K, V>, from: ReadonlyMap<K, V>): void {
  map.clear();
  for (const [key, value] of from) map.set(key, value);
}
