/**
 * Webhooks of an environment (`docs/protocol.md` §8.3): their rules, committed through the one
 * write protocol like every write (the ledger, `../kernel/ledger.ts`); which deliveries a change
 * commits is planned with it (`deliveries.ts`), and the dispatcher delivers them.
 */
import type {
  CreatedWebhook,
  CreateWebhookInput,
  UpdateWebhookInput,
  Webhook,
} from '../../../src/core/types.js';
import { validationError, webhookNotFound } from '../../errors.js';
import { SYSTEM_ACTOR } from '../kernel/actors.js';
import { newWebhookId, newWebhookSecret } from '../kernel/ids.js';
import { decide, type Ledger, type Plan } from '../kernel/ledger.js';
import type { Actor, Environment, StoredWebhook } from '../kernel/model.js';
import { signingSecret } from './deliveries.js';
import type { WebhookOp } from './ops.js';
import { subjectOf, toCreatedWebhook, toDelivery, toWebhook } from './representation.js';

/** Why a URL may not be a webhook target (the server's `webhookTargets` policy), or `undefined`. */
export type TargetCheck = (url: string) => Promise<string | undefined>;

/** Who made a change and now (`by`, `at`): what a webhook's ops carry for their audit records. */
const stamp = (actor: Actor) => ({ by: actor, at: new Date().toISOString() });

/** A webhook's rules change credited to `actor` (`SYSTEM_ACTOR` when a caller names none). */
export class WebhookService {
  readonly #ledger: Ledger<WebhookOp>;
  readonly #checkTarget: TargetCheck | undefined;

  constructor(ledger: Ledger<WebhookOp>, checkTarget?: TargetCheck) {
    this.#ledger = ledger;
    this.#checkTarget = checkTarget;
  }

  #decide<T>(scope: string, plan: () => Plan<T, WebhookOp>): Promise<T> {
    return decide(this.#ledger, scope, plan);
  }

  /** Refuses a URL the policy does not allow: 400 naming `url` and why. */
  async #allowed(url: string): Promise<void> {
    const problem = await this.#checkTarget?.(url);
    if (problem)
      throw validationError(`"url" is not allowed: ${problem} (the server's webhookTargets is "public")`);
  }

  listWebhooks(env: Environment): Promise<Webhook[]> {
    return this.#ledger.readSettled(env.id, () => [...env.webhooks.values()].sort(byCreation).map(toWebhook));
  }

  getWebhook(env: Environment, id: string): Promise<Webhook> {
    return this.#ledger.readSettled(env.id, () => {
      const hook = env.webhooks.get(id);
      if (!hook) throw webhookNotFound(id);
      return toWebhook(hook);
    });
  }

  async createWebhook(
    env: Environment,
    input: CreateWebhookInput,
    actor: Actor = SYSTEM_ACTOR,
  ): Promise<CreatedWebhook> {
    await this.#allowed(input.url);
    const hook: StoredWebhook = {
      id: newWebhookId(),
      url: input.url,
      events: input.events,
      secret: newWebhookSecret(),
      active: true,
      createdAt: new Date().toISOString(),
    };
    await this.#ledger.commit(env.id, () => [{ t: 'webhook', env: env.id, webhook: hook, ...stamp(actor) }]);
    return toCreatedWebhook(hook);
  }

  async updateWebhook(
    env: Environment,
    id: string,
    patch: UpdateWebhookInput,
    actor: Actor = SYSTEM_ACTOR,
  ): Promise<Webhook> {
    if (patch.url !== undefined) await this.#allowed(patch.url);
    const hook = await this.#decide(env.id, () => {
      const before = env.webhooks.get(id);
      if (!before) throw webhookNotFound(id);
      const after: StoredWebhook = { ...before };
      if (patch.active !== undefined) after.active = patch.active;
      if (patch.events !== undefined) after.events = patch.events;
      if (patch.url !== undefined) after.url = patch.url;
      const same =
        after.active === before.active &&
        after.url === before.url &&
        after.events.length === before.events.length &&
        after.events.every((kind, i) => kind === before.events[i]);
      return {
        ops: same ? [] : [{ t: 'webhook', env: env.id, webhook: after, ...stamp(actor) }],
        result: after,
      };
    });
    return toWebhook(hook);
  }

  /** The deliveries of a webhook, newest first. */
  /** The deliveries of a webhook, newest first; `filter` by status and by flag (or segment) key. */
  listDeliveries(
    env: Environment,
    id: string,
    filter: { status?: string; flag?: string } = {},
  ): Promise<Record<string, unknown>[]> {
    return this.#ledger.readSettled(env.id, () => {
      if (!env.webhooks.has(id)) throw webhookNotFound(id);
      return [...env.deliveries.values()]
        .filter(
          (d) =>
            d.webhookId === id &&
            (filter.status === undefined || d.status === filter.status) &&
            (filter.flag === undefined || subjectOf(d) === filter.flag),
        )
        .sort((a, b) =>
          a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.id < b.id ? 1 : -1,
        )
        .map((d) => toDelivery(env, d));
    });
  }

  /**
   * Replaces the webhook's secret; the secret signing until now keeps signing for `graceMs`
   * so receivers can accept both meanwhile. Answers the new secret, shown this once.
   */
  async rotateSecret(
    env: Environment,
    id: string,
    graceMs: number,
    actor: Actor = SYSTEM_ACTOR,
  ): Promise<Record<string, unknown>> {
    const after = await this.#decide(env.id, () => {
      const before = env.webhooks.get(id);
      if (!before) throw webhookNotFound(id);
      const now = Date.now();
      const rotated: StoredWebhook = {
        ...before,
        secret: newWebhookSecret(),
        previousSecret: signingSecret(before, now),
        previousSecretExpiresAt: now + graceMs,
      };
      return { ops: [{ t: 'webhook', env: env.id, webhook: rotated, ...stamp(actor) }], result: rotated };
    });
    return {
      ...toWebhook(after),
      secret: after.secret,
      previousSecretExpiresAt: new Date(after.previousSecretExpiresAt!).toISOString(),
    };
  }

  async deleteWebhook(env: Environment, id: string, actor: Actor = SYSTEM_ACTOR): Promise<void> {
    await this.#decide(env.id, () => {
      if (!env.webhooks.has(id)) throw webhookNotFound(id);
      return { ops: [{ t: 'webhook-del', env: env.id, id, ...stamp(actor) }], result: undefined };
    });
  }
}

const byCreation = (a: StoredWebhook, b: StoredWebhook) =>
  a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1;
