/**
 * Usage reports through the one write path (`docs/protocol.md` §13.3, `docs/architecture.md`):
 * each report is part of a `usage` op of its environment's scope, decided under the scope's lock
 * against every entry committed to it, so an id already counted (by any instance) adds nothing.
 * Reports that arrive while the environment's previous usage commit is under way wait and go
 * together in the next one, one entry for as many as `USAGE_QUEUE` lets in (group commit); past
 * its waiting cap a report is refused `503`. Each is answered once durable. Marks (§13.7) commit
 * as `usage-mark` ops, decided as flag writes are: against memory holding every mark before
 * them (`../kernel/applier.ts`); reads are settled reads.
 */
import { ApiError, flagNotFound } from '../../errors.js';
import type { Ledger } from '../kernel/ledger.js';
import type { Environment, MemoryState } from '../kernel/model.js';
import { DAY, type UsageMark, type UsageOp, type UsageRecord } from './model.js';
import { clientList, flagSeries, flagSummaries, RANGES, type UsageRange, unknownKeys } from './reads.js';
import { staleReport } from './stale.js';

/**
 * How much one entry and one environment's waiting reports hold (`docs/protocol.md` §13.3), in
 * rows: a report weighs its count and unknown rows, plus one. An entry takes reports in order up
 * to `entryRows` (at least one: a full report weighs 5,101) and `entryReports`; what waits beyond
 * goes in the next. Past `waitingRows` or `waitingReports` waiting for one environment (the
 * storage is slow or away), a report is refused `503` with a jittered `Retry-After`, and the SDK
 * sends it again, with its id, later.
 */
export const USAGE_QUEUE = {
  entryRows: 10_000,
  entryReports: 512,
  waitingRows: 100_000,
  waitingReports: 1_000,
} as const;

/** What a report weighs in `USAGE_QUEUE`'s rows. */
const weightOf = (record: UsageRecord): number => 1 + record.counts.length + record.unknown.length;

interface Waiting {
  record: UsageRecord;
  weight: number;
  resolve: (duplicate: boolean) => void;
  reject: (error: unknown) => void;
}

/** One environment's reports waiting for its next usage commit, and their weight. */
interface Queue {
  list: Waiting[];
  rows: number;
}

/** `503 UNAVAILABLE` for a report that would make the waiting queue too long. */
function queueFull(): ApiError {
  // Jittered, so the refused clients do not all come back in the same second.
  const seconds = 1 + Math.floor(Math.random() * 5);
  return new ApiError(
    503,
    'UNAVAILABLE',
    `too many usage reports of this environment wait for the storage; not counted, retry in ${seconds} s with the same id`,
    { 'retry-after': String(seconds) },
  );
}

export class UsageService {
  readonly #db: MemoryState;
  readonly #ledger: Ledger<UsageOp>;
  readonly #now: () => number;
  /** Per environment id, reports waiting for its next usage commit. */
  readonly #queues = new Map<string, Queue>();
  /** Reports of this instance being committed, by environment id and report id. */
  readonly #inFlight = new Map<string, Promise<boolean>>();

  /** `now`: the clock usage is recorded and read by (epoch ms). */
  constructor(db: MemoryState, ledger: Ledger<UsageOp>, now: () => number) {
    this.#db = db;
    this.#ledger = ledger;
    this.#now = now;
  }

  /** The clock usage is recorded by. */
  now(): number {
    return this.#now();
  }

  /**
   * Counts a checked report (`validate.ts`) in `env`; resolves once durable with whether it
   * was a duplicate (counted before, nothing added). Rejects as a commit does (`503`, a deleted
   * environment's `404`): then nothing was counted, and the SDK retries with the same id.
   */
  async report(env: Environment, record: UsageRecord): Promise<boolean> {
    const id = `${env.id}\n${record.id}`;
    // The same id on its way on this instance (a retry racing its first attempt): its outcome
    // first, so the plan below sees it committed, or not at all.
    for (let flight = this.#inFlight.get(id); flight; flight = this.#inFlight.get(id))
      await flight.catch(() => {});
    const queue = this.#queues.get(env.id);
    const weight = weightOf(record);
    if (
      queue &&
      (queue.list.length >= USAGE_QUEUE.waitingReports || queue.rows + weight > USAGE_QUEUE.waitingRows)
    )
      throw queueFull();
    const outcome = new Promise<boolean>((resolve, reject) => {
      const waiting = { record, weight, resolve, reject };
      if (queue) {
        queue.list.push(waiting);
        queue.rows += weight;
      } else {
        this.#queues.set(env.id, { list: [waiting], rows: weight });
        void this.#drain(env.id);
      }
    });
    this.#inFlight.set(id, outcome);
    try {
      return await outcome;
    } finally {
      if (this.#inFlight.get(id) === outcome) this.#inFlight.delete(id);
    }
  }

  /** Commits the environment's waiting reports, an entry's worth each time, until none wait. */
  async #drain(envId: string): Promise<void> {
    const queue = this.#queues.get(envId)!;
    try {
      while (queue.list.length > 0) {
        let taken: Waiting[] | undefined;
        const duplicates = new Set<Waiting>();
        try {
          // Taken when the plan runs (on Postgres, inside the transaction): whatever waits then goes.
          await this.#ledger.commit(envId, () => {
            taken = take(queue);
            const counted = this.#db.get(envId)?.usage?.ids;
            const ids = new Set<string>();
            const reports: UsageRecord[] = [];
            for (const waiting of taken) {
              const { id } = waiting.record;
              if (counted?.has(id) || ids.has(id)) duplicates.add(waiting);
              else {
                ids.add(id);
                reports.push(waiting.record);
              }
            }
            return reports.length === 0 ? [] : [{ t: 'usage', env: envId, at: this.#now(), reports }];
          });
          for (const waiting of taken!) waiting.resolve(duplicates.has(waiting));
        } catch (error) {
          // Refused before its plan ran (the storage is down or closed): everything waiting fails.
          if (!taken) {
            taken = queue.list.splice(0);
            queue.rows = 0;
          }
          for (const waiting of taken) waiting.reject(error);
        }
      }
    } finally {
      this.#queues.delete(envId);
    }
  }

  /** Sets a flag's stale mark (§13.7); `404` for an unknown flag. */
  async mark(
    env: Environment,
    key: string,
    patch: { permanent?: boolean; snoozedUntil?: number | null },
  ): Promise<UsageMark> {
    let mark!: UsageMark;
    await this.#ledger.commit(env.id, () => {
      if (!env.flags.has(key)) throw flagNotFound(key);
      const held = env.usage?.marks.get(key);
      mark = {
        permanent: patch.permanent ?? held?.permanent ?? false,
        snoozedUntil: patch.snoozedUntil === undefined ? (held?.snoozedUntil ?? null) : patch.snoozedUntil,
      };
      if (mark.snoozedUntil !== null && mark.snoozedUntil > this.#now() + 400 * DAY)
        throw new ApiError(400, 'VALIDATION_ERROR', 'snoozedUntil: must be at most 400 days ahead');
      if (held?.permanent === mark.permanent && held.snoozedUntil === mark.snoozedUntil) return [];
      if (!held && !mark.permanent && mark.snoozedUntil === null) return [];
      return [{ t: 'usage-mark', env: env.id, key, ...mark }];
    });
    return mark;
  }

  flags(env: Environment) {
    return this.#read(env, () => flagSummaries(env, this.#now()));
  }

  flag(env: Environment, key: string, range: UsageRange) {
    return this.#read(env, () => flagSeries(env, key, range, this.#now()));
  }

  clients(env: Environment) {
    return this.#read(env, () => clientList(env, this.#now()));
  }

  unknown(env: Environment) {
    return this.#read(env, () => unknownKeys(env));
  }

  stale(env: Environment) {
    return this.#read(env, () => staleReport(env, this.#now()));
  }

  #read<T>(env: Environment, read: () => T): Promise<T> {
    return this.#ledger.readSettled(env.id, read);
  }
}

/** Takes the reports of the next entry off `queue`: in order, up to `USAGE_QUEUE`'s entry bounds. */
function take(queue: Queue): Waiting[] {
  let rows = 0;
  let count = 0;
  for (const waiting of queue.list) {
    if (count === USAGE_QUEUE.entryReports || (count > 0 && rows + waiting.weight > USAGE_QUEUE.entryRows))
      break;
    rows += waiting.weight;
    count += 1;
  }
  queue.rows -= rows;
  return queue.list.splice(0, count);
}

export { RANGES, type UsageRange };
