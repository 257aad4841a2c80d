/**
 * Scheduled change requests on three `flagwire-server` processes sharing one Postgres
 * (`docs/protocol.md` §10.7): each instance's scheduler wakes at the request's time and tries to
 * apply it; one of them is SIGKILLed at that moment; the request is applied exactly once (one
 * history entry, one `change_request.applied` delivery), and an instance started afterwards
 * applies nothing again. A scheduled request whose flag moved fails on every instance alike,
 * writing nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ChangeRequest, HistoryEntry } from '../../../src/core/admin-wire.js';
import { type CliRun, startCli } from '../../helpers/cli.js';
import { startReceiver } from '../../helpers/receiver.js';
import { freshDatabase } from '../../helpers/server.js';

const TOKEN = 'change-requests-cluster-admin-token';
/** How far ahead the request is scheduled: time for three instances to hear of it. */
const AHEAD_MS = 2500;

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function stopLater(run: CliRun): void {
  cleanups.push(async () => {
    run.child.kill('SIGTERM');
    await run.exited;
  });
}

async function admin<T>(
  run: CliRun,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: T }> {
  const response = await fetch(`${run.url}/admin/api${path}`, {
    method,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: (text ? JSON.parse(text) : undefined) as T };
}

describe('scheduled change requests on three instances', () => {
  it('are applied exactly once when one instance is SIGKILLed at the scheduled moment', async () => {
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    // A delivery lease is twice the timeout: 4 s here, should the killed instance hold one.
    const args = ['--database', await freshDatabase(), '--admin-token', TOKEN, '--webhook-timeout', '2000'];
    const runs = await Promise.all([startCli(args), startCli(args), startCli(args)]);
    for (const run of runs) stopLater(run);
    const [a, b, c] = runs as [CliRun, CliRun, CliRun];
    const overview = await admin<{ projects: Array<{ key: string; environments: Array<{ key: string }> }> }>(
      a,
      'GET',
      '/overview',
    );
    const project = overview.json.projects[0]!;
    const env = `/environments/${project.key}/${project.environments[0]!.key}`;
    const api = (run: CliRun, method: string, path: string, body?: unknown) =>
      fetch(`${run.url}/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${a.fullKey}`, 'content-type': 'application/json' },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
    expect(
      (
        await api(a, 'POST', '/webhooks', {
          url: receiver.url,
          events: ['flag.enabled', 'change_request.applied', 'change_request.failed'],
        })
      ).status,
    ).toBe(201);
    for (const key of ['sale-banner', 'moved-meanwhile'])
      expect((await api(b, 'POST', '/flags', { key, type: 'boolean' })).status).toBe(201);

    const at = Date.now() + AHEAD_MS;
    const enable = (key: string) => ({ kind: 'flag', key, action: 'update', body: { enabled: true } });
    const sale = await admin<ChangeRequest>(b, 'POST', `${env}/change-requests`, {
      title: 'Sale banner on',
      changes: [enable('sale-banner')],
      scheduledAt: new Date(at).toISOString(),
    });
    expect(sale.status).toBe(201);
    expect(sale.json.state).toBe('scheduled');
    const moved = await admin<ChangeRequest>(c, 'POST', `${env}/change-requests`, {
      title: 'Moved meanwhile',
      changes: [enable('moved-meanwhile')],
      scheduledAt: new Date(at).toISOString(),
    });
    expect(moved.status).toBe(201);
    // Its flag moves before its time: it must fail, not overwrite.
    expect((await api(a, 'PATCH', '/flags/moved-meanwhile', { description: 'changed by hand' })).status).toBe(
      200,
    );

    // At the scheduled moment, one of the instances goes down hard.
    const killed = new Promise<void>((resolve) =>
      setTimeout(() => {
        a.child.kill('SIGKILL');
        resolve();
      }, at - Date.now()),
    );
    await killed;
    await a.exited;

    await expect
      .poll(
        async () =>
          (await admin<ChangeRequest>(b, 'GET', `${env}/change-requests/${sale.json.id}`)).json.state,
        {
          timeout: 20_000,
        },
      )
      .toBe('applied');
    await expect
      .poll(
        async () =>
          (await admin<ChangeRequest>(c, 'GET', `${env}/change-requests/${moved.json.id}`)).json.state,
        {
          timeout: 20_000,
        },
      )
      .toBe('failed');

    // An instance started afterwards finds them done, and does nothing again.
    const late = await startCli(args);
    stopLater(late);
    for (const run of [b, c, late]) {
      const read = await admin<ChangeRequest>(run, 'GET', `${env}/change-requests/${sale.json.id}`);
      expect(read.json).toMatchObject({ state: 'applied', appliedBy: { id: 'scheduler' } });
      const failed = await admin<ChangeRequest>(run, 'GET', `${env}/change-requests/${moved.json.id}`);
      expect(failed.json.state).toBe('failed');
      expect(failed.json.failure).toMatch(/flag "moved-meanwhile" is at version/);
      expect(
        ((await (await api(run, 'GET', '/flags/moved-meanwhile')).json()) as { enabled: boolean }).enabled,
      ).toBe(false);
    }
    const history = await admin<HistoryEntry[]>(late, 'GET', `${env}/history?limit=100`);
    expect(history.json.filter((h) => h.changeRequest?.id === sale.json.id)).toHaveLength(1);
    expect(history.json.filter((h) => h.changeRequest?.id === moved.json.id)).toHaveLength(0);

    // One event of each: the flag's and the requests', whoever applied them (a delivery the
    // killed instance held may come twice, as the same event).
    const eventsByType = () => {
      const ids = new Map<string, Set<string>>();
      for (const r of receiver.received)
        ids.set(r.json.type, (ids.get(r.json.type) ?? new Set()).add(r.json.id));
      return Object.fromEntries([...ids].map(([type, set]) => [type, set.size]));
    };
    await expect
      .poll(eventsByType, { timeout: 20_000 })
      .toEqual({ 'change_request.applied': 1, 'change_request.failed': 1, 'flag.enabled': 1 });
  });
});
