/**
 * OFREP's own usage (`docs/protocol.md` §13.5): single-flag evaluations added up in memory per
 * environment and committed as one report of SDK `ofrep` every interval and at shutdown, through
 * the usage service like any report. A report that fails is kept, with its id, and sent again
 * before anything newer, so a retry after a commit whose answer was lost counts once.
 */
import { randomBytes } from 'node:crypto';
import { FLAG_KEY_MAX_LENGTH, FLAG_KEY_PATTERN } from '../../../src/core/limits.js';
import { MAX_UNKNOWN_KEYS } from '../../../src/core/usage-limits.js';
import { FLAGWIRE_VERSION } from '../../../src/core/version.js';
import type { Logger } from '../../logger.js';
import type { Environment } from '../kernel/model.js';
import { addCount, type CountRow, type UsageRecord } from './model.js';
import type { UsageService } from './usage-service.js';

const isFlagKey = (key: string): boolean => key.length <= FLAG_KEY_MAX_LENGTH && FLAG_KEY_PATTERN.test(key);

interface Pending {
  env: Environment;
  /** Per flag key, its rows (a few: one per version, variant and reason served). */
  rows: Map<string, CountRow[]>;
  unknown: Map<string, number>;
  /** Evaluations of unknown keys past the 100, or that are no flag key: counted only. */
  unknownDropped: number;
  /** A report made of earlier counts that is not committed yet. */
  unsent: UsageRecord | undefined;
}

export class OfrepUsage {
  readonly #usage: UsageService;
  readonly #logger: Logger;
  readonly #pending = new Map<string, Pending>();
  readonly #timer: NodeJS.Timeout;
  #flushing: Promise<void> | undefined;

  constructor(usage: UsageService, logger: Logger, intervalMs: number) {
    this.#usage = usage;
    this.#logger = logger;
    this.#timer = setInterval(() => void this.flush(), intervalMs);
    this.#timer.unref();
  }

  /** One evaluation of `key` that read version `version` of a flag (`undefined`: no such flag). */
  count(
    env: Environment,
    key: string,
    version: number | undefined,
    variant: string | null,
    reason: string,
  ): void {
    let pending = this.#pending.get(env.id);
    if (!pending) {
      pending = { env, rows: new Map(), unknown: new Map(), unknownDropped: 0, unsent: undefined };
      this.#pending.set(env.id, pending);
    }
    // The environment's object may be replaced (a rename): its counts stay.
    pending.env = env;
    if (version === undefined) {
      // As an SDK's report: at most 100 unknown keys per report, flag keys only (§13.2); the
      // server keeps OFREP's unknown keys within a budget of their own (§13.4).
      const held = pending.unknown.get(key);
      if (held !== undefined) pending.unknown.set(key, addCount(held, 1));
      else if (pending.unknown.size < MAX_UNKNOWN_KEYS && isFlagKey(key)) pending.unknown.set(key, 1);
      else pending.unknownDropped = addCount(pending.unknownDropped, 1);
      return;
    }
    // No key string built per evaluation: the flag's few rows are compared in place.
    const rows = pending.rows.get(key);
    if (!rows) {
      pending.rows.set(key, [[key, version, variant, reason, 1]]);
      return;
    }
    for (const row of rows)
      if (row[1] === version && row[2] === variant && row[3] === reason) {
        row[4] = addCount(row[4], 1);
        return;
      }
    rows.push([key, version, variant, reason, 1]);
  }

  /** Commits what was counted (and what failed before); resolves when every attempt ended. */
  flush(): Promise<void> {
    this.#flushing ??= this.#flush().finally(() => (this.#flushing = undefined));
    return this.#flushing;
  }

  async #flush(): Promise<void> {
    const sends: Promise<void>[] = [];
    for (const pending of this.#pending.values()) {
      if (!pending.unsent && pending.rows.size === 0 && pending.unknown.size === 0 && !pending.unknownDropped)
        continue;
      pending.unsent ??= this.#record(pending);
      const record = pending.unsent;
      sends.push(
        this.#usage.report(pending.env, record).then(
          () => {
            if (pending.unsent === record) pending.unsent = undefined;
          },
          (error: unknown) => {
            if ((error as { status?: number })?.status === 404) {
              // The environment was deleted: nothing of it is kept.
              pending.unsent = undefined;
              if (this.#pending.get(pending.env.id) === pending) this.#pending.delete(pending.env.id);
            } else this.#logger.warn(`OFREP usage not committed yet: ${(error as Error)?.message ?? error}`);
          },
        ),
      );
    }
    await Promise.all(sends);
  }

  /** The counts as a report of their own; the counters start again. */
  #record(pending: Pending): UsageRecord {
    const record: UsageRecord = {
      id: `ofrep_${randomBytes(16).toString('base64url')}`,
      sdk: 'ofrep',
      sdkVersion: FLAGWIRE_VERSION,
      runtime: `node/${process.versions.node}`,
      app: null,
      appVersion: null,
      instance: null,
      eventId: null,
      state: null,
      counts: [...pending.rows.values()].flat(),
      unknown: [...pending.unknown],
    };
    if (pending.unknownDropped > 0) record.unknownDropped = pending.unknownDropped;
    pending.rows = new Map();
    pending.unknown = new Map();
    pending.unknownDropped = 0;
    return record;
  }

  /** Stops the timer and commits what is left. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
    // Counts of requests answered while that flush ran.
    await this.#flush();
  }
}
