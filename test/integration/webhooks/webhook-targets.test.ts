/**
 * The webhook target policy (`docs/protocol.md` §8.4): under `webhookTargets: 'public'`,
 * loopback, link-local (cloud metadata), private and reserved addresses are refused when a
 * webhook is saved (also through a name that resolves to one) and again at delivery, on the
 * address the delivery would connect to; `any`, the default, delivers to localhost.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../../server/webhooks/targets.js';
import { expectError } from '../../helpers/assert.js';
import { startReceiver } from '../../helpers/receiver.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const servers: TestServer[] = [];
afterAll(() => Promise.all(servers.map((s) => s.close())));

describe('which addresses are public', () => {
  it.each([
    ['93.184.216.34', true],
    ['8.8.8.8', true],
    ['2606:4700::1111', true],
    ['127.0.0.1', false],
    ['127.255.0.9', false],
    ['10.1.2.3', false],
    ['172.16.0.1', false],
    ['172.31.255.255', false],
    ['172.32.0.1', true],
    ['192.168.0.10', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['224.0.0.1', false],
    ['255.255.255.255', false],
    ['::1', false],
    ['::', false],
    ['fd00:ec2::254', false],
    ['fe80::1', false],
    ['ff02::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:8.8.8.8', true],
    ['64:ff9b::a00:1', false],
    ['not an address', false],
  ])('%s: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

describe('webhookTargets "public"', () => {
  it.each([
    'http://169.254.169.254/latest/meta-data/',
    'http://127.0.0.1:9/hook',
    'http://10.0.0.5/hook',
    'http://192.168.1.1/hook',
    'https://172.20.1.1/hook',
    'http://[::1]:8080/hook',
    'http://[fd00::1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://localhost:4000/hook',
  ])('refuses %s when it is saved', async (url) => {
    const t = await startTestServer({ config: undefined, webhookTargets: 'public' });
    servers.push(t);
    const message = await expectError(
      await t.api('POST', '/webhooks', { url, events: ['flag.updated'] }),
      400,
      'VALIDATION_ERROR',
    );
    expect(message).toContain('"url" is not allowed');
    expect(message).toMatch(/not a public address/);
  });

  it('accepts a public address and changes to one only', async () => {
    const t = await startTestServer({ config: undefined, webhookTargets: 'public' });
    servers.push(t);
    const created = await t.api('POST', '/webhooks', {
      url: 'http://93.184.216.34/hook',
      events: ['flag.updated'],
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    await expectError(
      await t.api('PATCH', `/webhooks/${id}`, { url: 'http://10.0.0.1/' }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('refuses at delivery a target saved before the policy, by address and by name', async () => {
    const receiver = await startReceiver();
    const dataDir = await mkdtemp(join(tmpdir(), 'flagwire-targets-'));
    try {
      const before = await startTestServer({ config: undefined, dataDir });
      const port = new URL(receiver.url).port;
      for (const url of [`http://127.0.0.1:${port}/a`, `http://localhost:${port}/b`])
        expect((await before.api('POST', '/webhooks', { url, events: ['flag.updated'] })).status).toBe(201);
      await before.close();

      const t = await startTestServer({
        config: undefined,
        dataDir,
        webhookTargets: 'public',
        webhookRetryDelaysMs: [],
      });

      try {
        await t.api('POST', '/flags', { key: 'f', type: 'boolean' });
        const hooks = (await (await t.api('GET', '/webhooks')).json()) as Array<{ id: string }>;
        for (const hook of hooks) {
          const deliveries = async () =>
            (await (await t.api('GET', `/webhooks/${hook.id}/deliveries`)).json()) as Array<{
              status: string;
              lastError: string | null;
            }>;
          await expect.poll(async () => (await deliveries())[0]?.status).toBe('failed');
          expect((await deliveries())[0]!.lastError).toMatch(/not a public address/);
        }
        expect(receiver.received).toHaveLength(0);
      } finally {
        await t.close();
      }
    } finally {
      await receiver.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('webhookTargets "any" (the default)', () => {
  it('delivers to localhost', async () => {
    const receiver = await startReceiver();
    try {
      const t = await startTestServer({ config: undefined });
      servers.push(t);
      await t.api('POST', '/webhooks', { url: receiver.url, events: ['flag.updated'] });
      await t.api('POST', '/flags', { key: 'g', type: 'boolean' });
      expect((await receiver.next()).json.type).toBe('flag.updated');
    } finally {
      await receiver.close();
    }
  });
});
