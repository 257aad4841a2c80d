/**
 * Usage reports through the one write path (`docs/protocol.md` §13.3, `docs/architecture.md`):
 * each report is committed as it comes, and waits for its commit where every write waits: in the
 * storage, which groups the commits that come together (its group commit, `../../store/`). A
 * report's plan, run under the scope's lock, takes its report and every other report of the
 * environment handed to the storage whose plan has not run yet, in arrival order, up to an entry's
 * bounds (`USAGE_QUEUE`): one `usage` op for them, decided against every entry committed to the
 * scope, so an id already counted (by any instance) adds nothing. Each report is answered once its
 * op is durable, with the outcome of the commit that took it; a plan that finds its report taken
 * commits nothing. Past the waiting caps a report is refused `503`. Marks (§13.7) commit as
 * `usage-mark` ops, decided as flag writes are: against memory holding every mark before them
 * (`../kernel/applier.ts`); reads are settled reads.
 */
import type {
  FlagUsage,
  FlagUsageSeries,
  StaleReport,
  UnknownKeyUsage,
  UsageClients,
} from '../../../src/core/usage-wire.js';
import { ApiError, flagNotFound } from '../../errors.js';
import { SYSTEM_ACTOR } from '../kernel/actors.js';
import type { Ledger } from '../kernel/ledger.js';
import type { Actor, Environment, MemoryState } from '../kernel/model.js';
import { DAY, type UsageMark, type UsageOp, type UsageRecord } from './model.js';
import { clientList, flagSeries, flagSummaries, RANGES, type UsageRange, unknownKeys } from './reads.js';
import { staleReport } from './stale.js';

/**
 * How much one entry and one environment's unanswered reports hold (`docs/protocol.md` §13.3), in
 * rows: a report weighs its count and unknown rows, plus one. A plan takes reports in order up to
 * `entryRows` (at least one: a full report weighs 5,101) and `entryReports`; the plans after it
 * take the rest. Past `waitingRows` or `waitingReports` of one environment not answered yet (the
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
  /** Counted before (set by the plan that took it): nothing of it is added. */
  duplicate: boolean;
  resolve: (duplicate: boolean) => void;
  reject: (error: unknown) => void;
}

/** One environment's reports handed to the storage and not answered yet. */
interface Unanswered {
  /** Those no plan has taken yet, in arrival order. */
  untaken: Waiting[];
  /** What all of them weigh, and how many they are (`USAGE_QUEUE`'s waiting caps). */
  rows: number;
  reports: number;
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
  /** Per environment id, its reports not answered yet. */
  readonly #unanswered = new Map<string, Unanswered>();
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
    const weight = weightOf(record);
    let unanswered = this.#unanswered.get(env.id);
    if (
      unanswered &&
      (unanswered.reports >= USAGE_QUEUE.waitingReports || unanswered.rows + weight > USAGE_QUEUE.waitingRows)
    )
      throw queueFull();
    if (!unanswered) {
      unanswered = { untaken: [], rows: 0, reports: 0 };
      this.#unanswered.set(env.id, unanswered);
    }
    unanswered.rows += weight;
    unanswered.reports += 1;
    const outcome = new Promise<boolean>((resolve, reject) => {
      const waiting = { record, weight, duplicate: false, resolve, reject };
      unanswered.untaken.push(waiting);
      this.#commit(env.id, waiting);
    });
    this.#inFlight.set(id, outcome);
    try {
      return await outcome;
    } finally {
      unanswered.rows -= weight;
      unanswered.reports -= 1;
      if (unanswered.reports === 0 && this.#unanswered.get(env.id) === unanswered)
        this.#unanswered.delete(env.id);
      if (this.#inFlight.get(id) === outcome) this.#inFlight.delete(id);
    }
  }

  /**
   * `own`'s commit. Its plan takes the reports not taken yet (`own` among them, unless an earlier
   * plan took it), and their answers are this commit's outcome; refused before its plan ran (the
   * storage down or closed), it answers `own` if no plan took it.
   */
  #commit(envId: string, own: Waiting): void {
    let taken: Waiting[] = [];
    this.#ledger
      .commit(envId, () => {
        // Taken when the plan runs (on Postgres, inside the transaction): whatever waits then goes.
        taken = this.#take(envId);
        const counted = this.#db.get(envId)?.usage?.ids;
        const ids = new Set<string>();
        const reports: UsageRecord[] = [];
        for (const waiting of taken) {
          const { id } = waiting.record;
          waiting.duplicate = counted?.has(id) === true || ids.has(id);
          if (waiting.duplicate) continue;
          ids.add(id);
          reports.push(waiting.record);
        }
        return reports.length === 0 ? [] : [{ t: 'usage', env: envId, at: this.#now(), reports }];
      })
      .then(
        () => {
          for (const waiting of taken) waiting.resolve(waiting.duplicate);
        },
        (error: unknown) => {
          for (const waiting of taken) waiting.reject(error);
          const untaken = this.#unanswered.get(envId)?.untaken;
          const at = untaken ? untaken.indexOf(own) : -1;
          if (at >= 0) {
            untaken!.splice(at, 1);
            own.reject(error);
          }
        },
      );
  }

  /** Takes the reports of the next entry off the environment's untaken ones: in order, up to `USAGE_QUEUE`'s entry bounds. */
  #take(envId: string): Waiting[] {
    const untaken = this.#unanswered.get(envId)?.untaken ?? [];
    let rows = 0;
    let count = 0;
    for (const waiting of untaken) {
      if (count === USAGE_QUEUE.entryReports || (count > 0 && rows + waiting.weight > USAGE_QUEUE.entryRows))
        break;
      rows += waiting.weight;
      count += 1;
    }
    return untaken.splice(0, count);
  }

  /** Sets a flag's stale mark (§13.7); `404` for an unknown flag. */
  async mark(
    env: Environment,
    key: string,
    patch: { permanent?: boolean; snoozedUntil?: number | null },
    actor: Actor = SYSTEM_ACTOR,
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
      // Who set it and when: its audit record (`../kernel/audit.ts`).
      return [{ t: 'usage-mark', env: env.id, key, ...mark, by: actor, at: new Date().toISOString() }];
    });
    return mark;
  }

  flags(env: Environment): Promise<FlagUsage[]> {
    return this.#read(env, () => flagSummaries(env, this.#now()));
  }

  flag(env: Environment, key: string, range: UsageRange): Promise<FlagUsageSeries | undefined> {
    return this.#read(env, () => flagSeries(env, key, range, this.#now()));
  }

  clients(env: Environment): Promise<UsageClients> {
    return this.#read(env, () => clientList(env, this.#now()));
  }

  unknown(env: Environment): Promise<UnknownKeyUsage[]> {
    return this.#read(env, () => unknownKeys(env));
  }

  stale(env: Environment): Promise<StaleReport> {
    return this.#read(env, () => staleReport(env, this.#now()));
  }

  #read<T>(env: Environment, read: () => T): Promise<T> {
    return this.#ledger.readSettled(env.id, read);
  }
}

export { RANGES, type UsageRange };
