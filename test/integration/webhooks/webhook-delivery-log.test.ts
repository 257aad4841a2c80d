/**
 * The deliveries log (`docs/protocol.md` §8.3): each delivery names its flag (or segment), and
 * each attempt records the body it sent, the answer's status, the first KiB of its body and the
 * duration; the list filters by status and by flag.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../../src/index.js';
import { expectError } from '../../helpers/assert.js';
import { startReceiver, type TestReceiver } from '../../helpers/receiver.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

interface Attempt {
  attempt: number;
  sentAt: string;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  response: string | null;
  request: string;
}

interface Delivery {
  id: string;
  flag: string | null;
  segment: string | null;
  status: string;
  attemptLog: Attempt[];
}

let t: TestServer;
let receiver: TestReceiver;
let hookId: string;
let secret: string;
beforeAll(async () => {
  // The first answer fails with a long body; every later one succeeds.
  receiver = await startReceiver((_request, index) => (index === 0 ? 500 : 200));
  t = await startTestServer({ config: undefined, webhookRetryDelaysMs: [1] });
  const hook = (await (
    await t.api('POST', '/webhooks', { url: receiver.url, events: ['flag.updated'] })
  ).json()) as {
    id: string;
    secret: string;
  };
  hookId = hook.id;
  secret = hook.secret;
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

const deliveries = async (query = '') =>
  (await (await t.api('GET', `/webhooks/${hookId}/deliveries${query}`)).json()) as Delivery[];

describe('the deliveries log', () => {
  it('records each attempt: the exact body sent, the status, the answer and the duration', async () => {
    await t.api('POST', '/flags', { key: 'logged', type: 'boolean' });
    await expect.poll(async () => (await deliveries())[0]?.status).toBe('succeeded');
    const [delivery] = await deliveries();
    expect(delivery).toMatchObject({ flag: 'logged', segment: null });
    expect(delivery!.attemptLog.map((a) => [a.attempt, a.statusCode, a.error])).toEqual([
      [1, 500, null],
      [2, 200, null],
    ]);
    // The logged body is the one the receiver got, byte for byte (its signature verifies).
    for (const [i, attempt] of delivery!.attemptLog.entries()) {
      const received = receiver.received[i]!;
      expect(attempt.request).toBe(received.body);
      expect(
        verifySignature(attempt.request, received.headers['x-flagwire-signature'] as string, secret),
      ).toBe(true);
      expect(attempt.durationMs).toBeGreaterThanOrEqual(0);
      expect(Date.parse(attempt.sentAt)).toBe(JSON.parse(received.body).delivery.sentAt * 1000);
    }
  });

  it('filters by status and by flag', async () => {
    await t.api('POST', '/flags', { key: 'other', type: 'boolean' });
    await expect.poll(async () => (await deliveries('?flag=other')).length).toBe(1);
    expect((await deliveries('?flag=other'))[0]!.flag).toBe('other');
    expect((await deliveries('?status=succeeded')).every((d) => d.status === 'succeeded')).toBe(true);
    expect(await deliveries('?flag=none')).toEqual([]);
    await expectError(
      await t.api('GET', `/webhooks/${hookId}/deliveries?status=done`),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('keeps the first KiB of an answer body', async () => {
    const body = `${'é'.repeat(600)}${'x'.repeat(3000)}`;
    const talker = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(body));
    });
    await new Promise<void>((resolve) => talker.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(talker.address() as AddressInfo).port}/`;
      const hook = (await (await t.api('POST', '/webhooks', { url, events: ['flag.updated'] })).json()) as {
        id: string;
      };
      await t.api('POST', '/flags', { key: 'talkative', type: 'boolean' });
      const log = async () =>
        ((await (await t.api('GET', `/webhooks/${hook.id}/deliveries`)).json()) as Delivery[])[0];
      await expect.poll(async () => (await log())?.status).toBe('succeeded');
      const response = (await log())!.attemptLog[0]!.response!;
      // 1,024 bytes: 512 two-byte characters, cut on a character boundary.
      expect(response).toBe('é'.repeat(512));
    } finally {
      await new Promise((resolve) => talker.close(resolve));
    }
  });
});
