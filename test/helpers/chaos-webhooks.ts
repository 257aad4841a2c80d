/**
 * The chaos suite's webhooks: receivers on loopback that fail some deliveries (a `500`, or no
 * answer at all), each registered as a webhook; and the check that every committed change
 * reached each of them, validly signed (dedupe by event id gives exactly the changes).
 */
import { verifySignature } from '../../src/index.js';
import { canonical, eventKey, type ModelFlag } from './chaos-model.js';
import type { ChaosSettings } from './chaos-plan.js';
import type { ChaosTarget } from './chaos-server.js';
import { CONVERGENCE_DEADLINE_MS, difference, until } from './chaos-sync.js';
import { Rng } from './prng.js';
import { startReceiver, type TestReceiver } from './receiver.js';

export interface ChaosWebhook {
  receiver: TestReceiver;
  id: string;
  secret: string;
  /** Answers other than 200 the receiver gave. */
  failed: number;
  events: string[];
}

export interface WebhookFigures {
  /** Event types subscribed to. */
  events: number;
  /** Committed changes of those types. */
  expected: number;
  requests: number;
  /** Distinct event ids received. */
  unique: number;
  failedAnswers: number;
}

/** Starts `settings.webhooks` receivers and registers a webhook for each. */
export async function startWebhooks(settings: ChaosSettings, server: ChaosTarget): Promise<ChaosWebhook[]> {
  const hooks: ChaosWebhook[] = [];
  // Webhook receivers that fail about one delivery in seven (a 500, or no answer at all).
  for (let i = 0; i < settings.webhooks; i++) {
    const rng = new Rng(settings.seed ^ (0x3eb0 + i));
    const entry = {
      receiver: undefined as unknown as TestReceiver,
      id: '',
      secret: '',
      failed: 0,
      events: [] as string[],
    };
    entry.receiver = await startReceiver(() => {
      const answer = rng.weighted<number | 'hang'>([
        [86, () => 200],
        [10, () => 500],
        [4, () => 'hang'],
      ]);
      if (answer !== 200) entry.failed += 1;
      return answer;
    });
    // Every third webhook subscribes to enabled / disabled only.
    const events =
      i % 3 === 2 ? ['flag.enabled', 'flag.disabled'] : ['flag.enabled', 'flag.disabled', 'flag.updated'];
    const created = await server.api('POST', '/webhooks', { url: entry.receiver.url, events });
    const hook = created.json as { id: string; secret: string };
    entry.id = hook.id;
    entry.secret = hook.secret;
    entry.events = events;
    hooks.push(entry);
  }
  return hooks;
}

/**
 * Waits until every webhook has an event for each committed change of its types (`expectedEvents`,
 * as `eventKey` writes them), checking every request's signature; reports what is missing.
 */
export async function awaitWebhooks(
  hooks: ChaosWebhook[],
  expectedEvents: string[],
  server: ChaosTarget,
  defects: string[],
  healedAt: number,
): Promise<{ webhooks: WebhookFigures[]; deliveredMs: number }> {
  // Deliveries queue behind the faults (a receiver that never answers holds one of the
  // server's 16 delivery slots for the 1 s timeout), so the deadline grows with the work.
  const webhookDeadlineMs = CONVERGENCE_DEADLINE_MS + 10 * expectedEvents.length;
  let deliveredMs = 0;
  const webhooks = await Promise.all(
    hooks.map(async ({ receiver, id, secret, failed, events }) => {
      const expected = expectedEvents.filter((e) => events.includes(e.slice(0, e.indexOf('|')))).sort();
      const unique = new Map<string, string>();
      const take = (from: number) => {
        for (let r = from; r < receiver.received.length; r++) {
          const { raw, headers, json } = receiver.received[r]!;
          const signature = headers['x-flagwire-signature'];
          if (!verifySignature(raw, typeof signature === 'string' ? signature : undefined, secret))
            defects.push(`webhook ${id}: request ${r} has no valid signature`);
          if (json.webhookId !== id)
            defects.push(`webhook ${id}: request ${r} names webhook ${json.webhookId}`);
          const flag = (json.data as { flag?: ModelFlag }).flag;
          const key = flag
            ? eventKey(json.type, String(json.data.action), canonical(flag))
            : `? ${json.type}`;
          const earlier = unique.get(json.id);
          if (earlier !== undefined && earlier !== key)
            defects.push(`webhook ${id}: event ${json.id} came as ${earlier} and as ${key}`);
          unique.set(json.id, key);
        }
        return receiver.received.length;
      };
      let seen = 0;
      const ok = await until(webhookDeadlineMs, (wake) => {
        seen = take(seen);
        if (unique.size >= expected.length) return true;
        void receiver.next().then(wake);
        return () => {};
      });
      deliveredMs = Math.max(deliveredMs, Date.now() - healedAt);
      const got = [...unique.values()].sort();
      if (!ok || got.join('\n') !== expected.join('\n')) {
        const missing = difference(expected, got);
        const extra = difference(got, expected);
        const { json } = await server.api('GET', `/webhooks/${id}/deliveries`);
        const states: Record<string, number> = {};
        for (const d of json as Array<{ status: string }>) states[d.status] = (states[d.status] ?? 0) + 1;
        defects.push(
          `webhook ${id}: ${unique.size} distinct events for ${expected.length} committed changes after ${webhookDeadlineMs} ms; ` +
            `missing ${missing.length} (${missing.slice(0, 3).join('; ')}), unexpected ${extra.length} (${extra.slice(0, 3).join('; ')}); ` +
            `the server lists its deliveries as ${JSON.stringify(states)}`,
        );
      }
      return {
        events: events.length,
        expected: expected.length,
        requests: receiver.received.length,
        unique: unique.size,
        failedAnswers: failed,
      };
    }),
  );
  return { webhooks, deliveredMs };
}
