/**
 * Webhook delivery across instances on one Postgres (`docs/scaling.md`): three `flagwire-server`
 * processes; the one making an attempt is SIGKILLed while the receiver holds the request, and
 * the others deliver every event after its lease, with a complete deliveries log.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type CliRun, startCli } from '../../helpers/cli.js';
import { queryDatabase } from '../../helpers/postgres.js';
import { startReceiver } from '../../helpers/receiver.js';
import { freshDatabase } from '../../helpers/server.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('webhooks on three instances', () => {
  it('delivers every event when the instance making an attempt is SIGKILLed mid-delivery', async () => {
    const receiver = await startReceiver((_, i) => (i === 0 ? 'hang' : 200));
    cleanups.push(() => receiver.close());
    const databaseUrl = await freshDatabase();
    // A lease is twice the timeout: 4 s here.
    const args = ['--database', databaseUrl, '--webhook-retry-delays', '50,50', '--webhook-timeout', '2000'];
    const runs: CliRun[] = [];
    for (const run of await Promise.all([startCli(args), startCli(args), startCli(args)])) {
      runs.push(run);
      cleanups.push(async () => {
        run.child.kill('SIGTERM');
        await run.exited;
      });
    }
    const [a, b] = runs as [CliRun, CliRun, CliRun];
    expect(new Set(runs.map((r) => r.fullKey)).size).toBe(1);
    const headers = { authorization: `Bearer ${a.fullKey}`, 'content-type': 'application/json' };
    const hook = await (
      await fetch(`${a.url}/api/v1/webhooks`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ url: receiver.url, events: ['flag.updated'] }),
      })
    ).json();
    for (const key of ['one', 'two', 'three']) {
      const created = await fetch(`${b.url}/api/v1/flags`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ key, type: 'boolean' }),
      });
      expect(created.status).toBe(201);
    }
    // The first request is held: kill the instance that holds its lease.
    const held = await receiver.next();
    const deliveryId = held.headers['x-flagwire-delivery'] as string;
    const [lease] = await queryDatabase<{ owner: string }>(
      databaseUrl,
      'SELECT owner FROM flagwire_leases WHERE name = $1',
      [`webhook-delivery:${deliveryId}`],
    );
    const pid = Number(lease!.owner.split('/')[1]);
    const holder = runs.find((r) => r.child.pid === pid)!;
    expect(holder).toBeDefined();
    holder.child.kill('SIGKILL');
    await holder.exited;
    const survivor = runs.find((r) => r !== holder)!;

    // Every event reaches the receiver with a 2xx; the held one again, same event and delivery.
    await expect
      .poll(() => new Set(receiver.received.slice(1).map((r) => r.json.id)).size, { timeout: 20_000 })
      .toBe(3);
    const again = receiver.received.slice(1).find((r) => r.json.delivery.id === deliveryId);
    expect(again?.json.id).toBe(held.json.id);
    // Each attempt was made by one instance: the held delivery twice in all, the others once.
    expect(receiver.received.length).toBe(4);

    // The deliveries log is complete on the survivors.
    const log = async () =>
      (await (
        await fetch(`${survivor.url}/api/v1/webhooks/${hook.id}/deliveries`, { headers })
      ).json()) as Array<{ status: string }>;
    await expect
      .poll(async () => (await log()).map((d) => d.status))
      .toEqual(['succeeded', 'succeeded', 'succeeded']);
  });
});
