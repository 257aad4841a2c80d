/**
 * Signed, durable, at-least-once webhook delivery (`docs/protocol.md` §8).
 *
 * - Every flag change commits one delivery per active subscribed webhook, planned in the state
 *   layer with the change (`../state/webhooks/deliveries.ts`) and committed in the same journal
 *   entry, so a crash never loses one; they are scheduled here once durable (and again at
 *   start-up for whatever is still pending).
 * - An attempt serializes the envelope once (a fresh `delivery.sentAt`), signs those exact
 *   bytes and POSTs them (`sender.ts`): bounded concurrency in all and per webhook (taken in
 *   turn, so a receiver that hangs cannot hold up the others), a timeout for the whole
 *   exchange, no redirects followed. 2xx succeeds; `410 Gone` deactivates the webhook; anything
 *   else is retried on the schedule with +-20 % jitter until it runs out.
 * - Each outcome is committed before the next attempt is scheduled. Whatever commits a pending
 *   delivery (a change, a retry, a redelivery, a test, on this instance or another) schedules it
 *   through `committed`, the applier's op listener.
 * - An attempt is made under the delivery's lease (`Leases`), so of several instances sharing a
 *   database one makes it; a storage of one instance always grants it.
 */
import { createHmac } from 'node:crypto';
import { ApiError, webhookNotFound } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Op } from '../state/domains.js';
import { newEventId } from '../state/kernel/ids.js';
import type { Ledger } from '../state/kernel/ledger.js';
import type {
  AttemptRecord,
  Environment,
  EventPayload,
  MemoryState,
  StoredDelivery,
} from '../state/kernel/model.js';
import { newDelivery, signingSecret } from '../state/webhooks/deliveries.js';
import type { WebhookOp } from '../state/webhooks/ops.js';
import { envelope } from '../state/webhooks/representation.js';
import { StorageUnavailableError } from '../store/errors.js';
import type { Storage } from '../store/storage.js';
import { outcomeOf } from './outcome.js';
import { Sender } from './sender.js';
import { Slots } from './slots.js';
import { addressProblem } from './targets.js';

/** The storage's leases (`Storage.lease`): an attempt is made only under its delivery's. */
export type Leases = Pick<Storage<Op>, 'lease' | 'unlease'>;

export interface DispatcherOptions {
  leases: Leases;
  /** Deliver only to public addresses (`webhookTargets: 'public'`, `targets.ts`), checked on the address connected to. */
  publicOnly?: boolean;
  retryDelaysMs: readonly number[];
  timeoutMs: number;
  concurrency: number;
  concurrencyPerWebhook: number;
  logger: Logger;
}

export function sign(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

export class Dispatcher {
  readonly #db: MemoryState;
  readonly #ledger: Ledger<WebhookOp>;
  readonly #options: DispatcherOptions;
  readonly #sender: Sender;
  readonly #timers = new Map<string, NodeJS.Timeout>();
  readonly #running = new Set<Promise<void>>();
  readonly #slots: Slots;
  readonly #controller = new AbortController();
  /** Deliveries with a run under way (waiting for a slot, or attempting). */
  readonly #inFlight = new Set<string>();
  /** Deliveries scheduled again while a run was under way. */
  readonly #rerun = new Set<string>();
  #closed = false;

  constructor(db: MemoryState, ledger: Ledger<WebhookOp>, options: DispatcherOptions) {
    this.#db = db;
    this.#ledger = ledger;
    this.#options = options;
    this.#sender = new Sender({ connections: options.concurrency, publicOnly: options.publicOnly ?? false });
    this.#slots = new Slots(options.concurrency, options.concurrencyPerWebhook);
  }

  /**
   * Schedules a pending delivery once committed, by this instance or another (the applier's op
   * listener): a change's, a retry, a redelivery, a test.
   */
  readonly committed = (op: Op): void => {
    if (op.t !== 'delivery' || op.delivery.status !== 'pending') return;
    const env = this.#db.get(op.env);
    if (env) this.#schedule(env, op.delivery);
  };

  /** Schedules every pending delivery in the store (at start-up). */
  start(): void {
    for (const env of this.#db.values()) {
      for (const delivery of env.deliveries.values())
        if (delivery.status === 'pending') this.#schedule(env, delivery);
    }
  }

  /**
   * Delivers the event of delivery `deliveryId` of webhook `webhookId` again, with the same event
   * id, as a new delivery; 404 when either is not there.
   */
  async redeliver(env: Environment, webhookId: string, deliveryId: string): Promise<StoredDelivery> {
    let copy: StoredDelivery | undefined;
    await this.#ledger.commit(env.id, () => {
      const hook = env.webhooks.get(webhookId);
      if (!hook) throw webhookNotFound(webhookId);
      const delivery = env.deliveries.get(deliveryId);
      if (delivery?.webhookId !== webhookId)
        throw new ApiError(404, 'NOT_FOUND', `delivery ${JSON.stringify(deliveryId)} not found`);
      const { eventId, type, data, createdAt } = delivery;
      copy = newDelivery(hook, eventId, type, data, createdAt, Date.now());
      return [{ t: 'delivery', env: env.id, delivery: copy }];
    });
    return copy!;
  }

  /** Sends a signed `webhook.test` event to one webhook (active or not); 404 when it is not there. */
  async test(env: Environment, webhookId: string): Promise<StoredDelivery> {
    const data: EventPayload = {
      action: 'test',
      flag: { key: 'flagwire-test', type: 'boolean', enabled: true, description: 'a test event' },
    };
    let delivery: StoredDelivery | undefined;
    await this.#ledger.commit(env.id, () => {
      const hook = env.webhooks.get(webhookId);
      if (!hook) throw webhookNotFound(webhookId);
      const now = Date.now();
      delivery = newDelivery(hook, newEventId(), 'webhook.test', data, new Date(now).toISOString(), now);
      return [{ t: 'delivery', env: env.id, delivery }];
    });
    return delivery!;
  }

  /** Stops scheduling and aborts attempts under way (they stay pending and resume at the next start). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    this.#controller.abort();
    this.#slots.close();
    await Promise.allSettled([...this.#running]);
    this.#sender.close();
  }

  #schedule(env: Environment, delivery: StoredDelivery): void {
    this.#scheduleAt(env, delivery.id, delivery.nextAttemptAt ?? 0);
  }

  #scheduleAt(env: Environment, id: string, at: number): void {
    if (this.#closed) return;
    clearTimeout(this.#timers.get(id));
    const timer = setTimeout(
      () => {
        this.#timers.delete(id);
        const run = this.#run(env, id).finally(() => this.#running.delete(run));
        this.#running.add(run);
      },
      Math.max(0, at - Date.now()),
    );
    timer.unref();
    this.#timers.set(id, timer);
  }

  /** How long a claim lasts: the attempt's timeout, and as long again to commit its outcome. */
  get #leaseMs(): number {
    return Math.max(1000, 2 * this.#options.timeoutMs);
  }

  async #run(env: Environment, id: string): Promise<void> {
    // One run per delivery at a time: a second (a reschedule while the first waits for a slot)
    // would make the same attempt twice.
    if (this.#inFlight.has(id)) {
      this.#rerun.add(id);
      return;
    }
    this.#inFlight.add(id);
    try {
      await this.#runOnce(env, id);
    } finally {
      this.#inFlight.delete(id);
      // Asked for again meanwhile (another outcome arrived): follow what memory holds now.
      const delivery = this.#rerun.delete(id) ? env.deliveries.get(id) : undefined;
      if (delivery?.status === 'pending') this.#schedule(env, delivery);
    }
  }

  async #runOnce(env: Environment, id: string): Promise<void> {
    const hookId = env.deliveries.get(id)?.webhookId ?? '';
    if (!(await this.#slots.take(hookId))) return;
    try {
      if (!this.#closed) await this.#attempt(env, id);
    } catch (error) {
      if (error instanceof StorageUnavailableError) {
        // The database went away before the outcome was recorded: whoever holds the lease
        // next (this instance or another) makes the attempt again.
        this.#scheduleAt(env, id, Date.now() + this.#leaseMs);
      } else {
        this.#options.logger.error(
          `webhook delivery ${id} failed unexpectedly: ${(error as Error)?.stack ?? error}`,
        );
      }
    } finally {
      this.#slots.give(hookId);
    }
  }

  /** Takes the delivery's lease, so this instance alone attempts it now; reschedules it when it may not. */
  async #lease(env: Environment, id: string): Promise<boolean> {
    let next: number;
    try {
      next = await this.#options.leases.lease(leaseName(id), this.#leaseMs);
    } catch {
      next = Date.now() + 1000;
    }
    if (next === 0) return true;
    this.#scheduleAt(env, id, next);
    return false;
  }

  #unlease(id: string): Promise<void> {
    return this.#options.leases.unlease(leaseName(id)).catch(() => {});
  }

  async #attempt(env: Environment, id: string): Promise<void> {
    if (!(await this.#lease(env, id))) return;
    // Read under the lease: memory then holds every attempt recorded by any instance.
    const delivery = await this.#ledger.readSettled(env.id, () => env.deliveries.get(id));
    const hook = delivery && env.webhooks.get(delivery.webhookId);
    if (!delivery || !hook || delivery.status !== 'pending') {
      await this.#unlease(id);
      return;
    }
    if ((delivery.nextAttemptAt ?? 0) > Date.now()) {
      // Another instance made an attempt meanwhile and set the next one: keep to the schedule.
      await this.#unlease(id);
      this.#schedule(env, delivery);
      return;
    }
    const now = Date.now();
    if (!hook.active && delivery.type !== 'webhook.test') {
      await this.#record(
        env,
        delivery,
        { ...delivery, status: 'failed', lastError: 'the webhook is inactive' },
        false,
      );
      return;
    }
    const attempt = delivery.attempts + 1;
    const body = envelope(env, delivery, attempt, Math.floor(now / 1000));
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'flagwire-webhooks/1',
      'x-flagwire-signature': sign(signingSecret(hook, now), body),
      'x-flagwire-event': delivery.type,
      'x-flagwire-delivery': delivery.id,
    };
    const sentAt = Math.floor(now / 1000);
    const names = { project: env.project, environment: env.environment };
    const record: AttemptRecord = { attempt, sentAt, durationMs: 0, names };
    const started = performance.now();
    const timeout = AbortSignal.timeout(this.#options.timeoutMs);
    try {
      // An address in the URL is not looked up: the policy checks it here.
      const refused = this.#options.publicOnly ? addressProblem(hook.url) : undefined;
      if (refused) throw new Error(`${refused} (webhookTargets "public")`);
      const signal = AbortSignal.any([timeout, this.#controller.signal]);
      const answer = await this.#sender.post(hook.url, headers, body, signal);
      record.statusCode = answer.statusCode;
      record.response = answer.response;
    } catch (error) {
      if (this.#closed) {
        // Shutting down: stays pending, resumes at the next start (or on another instance now).
        await this.#unlease(id);
        return;
      }
      record.error = timeout.aborted
        ? `no answer within ${this.#options.timeoutMs} ms`
        : String((error as Error)?.message ?? error);
    }
    record.durationMs = Math.round(performance.now() - started);
    const { next, deactivate } = outcomeOf(delivery, record, this.#options.retryDelaysMs);
    await this.#record(env, delivery, next, deactivate);
  }

  /**
   * Commits an attempt's outcome, unless another outcome got there first (another instance's,
   * after this one's lease ran out): a late outcome never overwrites a newer one. `deactivate`
   * turns the webhook off as it is then (a 410), keeping concurrent changes. A retry is
   * scheduled by `committed`, like any pending delivery; the lease is given back after.
   */
  async #record(
    env: Environment,
    before: StoredDelivery,
    outcome: StoredDelivery,
    deactivate: boolean,
  ): Promise<void> {
    await this.#ledger.commit(env.id, () => {
      const current = env.deliveries.get(outcome.id);
      if (current?.status !== 'pending' || current.attempts !== before.attempts) return [];
      const ops: WebhookOp[] = [{ t: 'delivery', env: env.id, delivery: outcome }];
      const hook = env.webhooks.get(outcome.webhookId);
      if (deactivate && hook) ops.push({ t: 'webhook', env: env.id, webhook: { ...hook, active: false } });
      return ops;
    });
    await this.#unlease(outcome.id);
  }
}

/** The lease an attempt at delivery `id` is made under. */
const leaseName = (id: string): string => `webhook-delivery:${id}`;
