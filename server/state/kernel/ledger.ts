/**
 * The one write protocol's entry point for the state layer (`docs/architecture.md`, "One write
 * protocol"): `commit` and `readSettled`. A write is a plan, decided by the storage under its
 * scope's lock against memory holding every committed entry (so of racing writes, one 201 and
 * one 409); its ops reach memory through the applier, and it is answered once durable. Reads
 * are settled reads: they answer nothing a crash or a failed commit could take back. The server
 * makes one ledger and hands it to every domain's service.
 */
import { ApiError } from '../../errors.js';
import type { Storage } from '../../store/storage.js';
import type { MemoryState } from './model.js';
import type { BaseOp } from './ops.js';

/** Writes and settled reads of the state, whatever the storage. `O`: the ops its user commits. */
export interface Ledger<O extends BaseOp = BaseOp> {
  /**
   * Commits what `plan` answers as one entry of `scope` (an environment's id, or `''` for what
   * spans them), decided under the scope's lock against memory holding every entry committed to
   * it (by any instance); `[]` commits nothing, a throw refuses. Resolves once durable.
   */
  commit(scope: string, plan: () => O[]): Promise<void>;
  /**
   * A settled read (`Storage.readSettled`): runs `read` against memory holding every entry
   * committed to `scope` (`null`: memory as it stands), and answers once all it could see is durable.
   */
  readSettled<T>(scope: string | null, read: () => T): Promise<T>;
}

/**
 * `ops`, unless one is for an environment no longer in memory (deleted while a request or a
 * delivery was under way): then 404, and nothing is written to the scope after its deletion.
 */
export function refuseDeleted<O extends BaseOp>(db: MemoryState, ops: O[]): O[] {
  for (const op of ops)
    if ('env' in op && !db.has(op.env as string))
      throw new ApiError(404, 'NOT_FOUND', 'environment not found: it was deleted');
  return ops;
}

/** The ledger of a storage attached to the applier of memory `db`. */
export class StorageLedger<O extends BaseOp> implements Ledger<O> {
  readonly #db: MemoryState;
  readonly #storage: Pick<Storage<O>, 'commit' | 'readSettled'>;

  constructor(db: MemoryState, storage: Pick<Storage<O>, 'commit' | 'readSettled'>) {
    this.#db = db;
    this.#storage = storage;
  }

  async commit(scope: string, plan: () => O[]): Promise<void> {
    // Nothing is written to an environment deleted meanwhile (a request or a delivery under way).
    await this.#storage.commit(scope, () => refuseDeleted(this.#db, plan()));
  }

  readSettled<T>(scope: string | null, read: () => T): Promise<T> {
    return this.#storage.readSettled(scope, read);
  }
}

/** What a write decides against the current state: the ops to commit and the answer. */
export interface Plan<T, O extends BaseOp = BaseOp> {
  ops: O[];
  result: T;
}

/** Commits what `plan` decides as one entry of `scope`; resolves with its answer once durable. */
export async function decide<T, O extends BaseOp>(
  ledger: Pick<Ledger<O>, 'commit'>,
  scope: string,
  plan: () => Plan<T, NoInfer<O>>,
): Promise<T> {
  let result: T | undefined;
  await ledger.commit(scope, () => {
    const planned = plan();
    result = planned.result;
    return planned.ops;
  });
  return result as T;
}
