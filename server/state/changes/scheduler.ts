/**
 * Applies scheduled change requests when their time comes (`docs/protocol.md` §10.7): it sleeps
 * until the earliest scheduled time it knows of (or `pollMs`, to see what other instances
 * scheduled), then asks the service to apply each request due. The service decides under the
 * environment's lock, so with several instances on one Postgres every one of them may try and
 * exactly one applies; one that was down when a time passed applies it when it starts (late, and
 * the request says so).
 */
import { ApiError } from '../../errors.js';
import type { Environment } from '../kernel/model.js';
import type { BaseOp } from '../kernel/ops.js';
import type { ChangeRequestService } from './change-request-service.js';
import type { ChangeOp } from './ops.js';

/** How long a timer may be set for (setTimeout's bound). */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface SchedulerOptions {
  /** The environments to look at: the ones this server serves. */
  environments: () => Iterable<Environment>;
  /** The clock scheduled times are compared with (epoch ms). */
  now: () => number;
  /** The longest it sleeps between looks, in ms. */
  pollMs: number;
  /** Told of an apply that failed for a reason other than the request's own (the storage, say). */
  onError: (error: unknown) => void;
}

export class ChangeScheduler {
  readonly #service: ChangeRequestService;
  readonly #options: SchedulerOptions;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #closed = false;

  constructor(service: ChangeRequestService, options: SchedulerOptions) {
    this.#service = service;
    this.#options = options;
  }

  /** Looks now, and from then on when a request is scheduled (`committed`) or its time comes. */
  start(): void {
    this.wake();
  }

  /**
   * Follows every committed op (`Applier.onCommitted`), whichever instance committed it: a request
   * scheduled wakes it, to sleep until that time.
   */
  readonly committed = (op: BaseOp): void => {
    if ((op as ChangeOp).t === 'cr' && (op as ChangeOp).cr.state === 'scheduled') this.wake();
  };

  /** Looks again at once (a request was scheduled, or the test's clock moved). */
  wake(): void {
    if (this.#closed) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#arm(0);
  }

  /** Stops; a look under way finishes first. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  #arm(ms: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#running = this.#look().finally(() => {
        this.#running = undefined;
      });
    }, ms);
    this.#timer.unref();
  }

  async #look(): Promise<void> {
    const { environments, now, pollMs, onError } = this.#options;
    let next = Number.POSITIVE_INFINITY;
    for (const env of [...environments()]) {
      for (const { id, at } of this.#service.scheduledOf(env)) {
        if (this.#closed) return;
        if (at > now()) {
          next = Math.min(next, at);
          continue;
        }
        try {
          await this.#service.applyDue(env, id);
        } catch (error) {
          // An environment deleted meanwhile has nothing left to apply.
          if (error instanceof ApiError && error.status === 404) continue;
          // Tried again at the next look: the request is still scheduled.
          onError(error);
          next = Math.min(next, now() + pollMs);
        }
      }
    }
    if (this.#closed) return;
    if (this.#again) {
      this.#again = false;
      this.#arm(0);
      return;
    }
    this.#arm(Math.max(0, Math.min(next - now(), pollMs, MAX_TIMER_MS)));
  }
}
