/**
 * The examples under `examples/` run against a real reference server: each webhook receiver
 * gets a real signed delivery, accepts it, and refuses a tampered copy. They import
 * `flagwire` the way users do (the built package).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookApp } from '../../../examples/webhook-receiver-express.js';
import { handleWebhook } from '../../../examples/webhook-receiver-fetch.js';
import { createWebhookReceiver } from '../../../examples/webhook-receiver-node.js';
import type { WebhookEvent } from '../../../src/index.js';
import { KEYS, startTestServer, type TestServer } from '../../helpers/server.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ webhookRetryDelaysMs: [20] });
});
const servers: Server[] = [];
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
  await t.close();
});

/** Serves a fetch-style handler on node:http, as a Worker or a Next.js route would run it. */
function fetchServer(handler: (request: Request) => Promise<Response>): Server {
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers))
        if (typeof value === 'string') headers.set(name, value);
      const response = await handler(
        new Request(`http://${req.headers.host}${req.url}`, {
          method: req.method!,
          headers,
          body: Buffer.concat(chunks),
        }),
      );
      res.writeHead(response.status).end(Buffer.from(await response.arrayBuffer()));
    });
  });
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

type Make = (secret: string, onEvent: (event: WebhookEvent) => void) => { server: Server; path: string };

const receivers: Array<[string, Make]> = [
  ['node:http', (secret, onEvent) => ({ server: createWebhookReceiver(secret, onEvent), path: '/' })],
  [
    'Express',
    (secret, onEvent) => ({
      server: createServer(createWebhookApp(secret, onEvent)),
      path: '/webhooks/flagwire',
    }),
  ],
  [
    'fetch-style',
    (secret, onEvent) => ({
      server: fetchServer((request) => handleWebhook(request, secret, onEvent)),
      path: '/',
    }),
  ],
];

describe('webhook receiver examples', () => {
  it.each(receivers)('%s: accepts a real signed delivery and refuses a tampered one', async (name, make) => {
    // The secret exists once the webhook does: create it first, then point it at the receiver.
    const hook = (await (
      await t.api('POST', '/webhooks', { url: 'http://127.0.0.1:9/not-yet', events: ['flag.updated'] })
    ).json()) as { id: string; secret: string };
    let url = '';
    const event = new Promise<WebhookEvent>((resolve) => {
      const { server, path } = make(hook.secret, resolve);
      servers.push(server);
      void listen(server)
        .then((base) => {
          url = `${base}${path}`;
          return t.api('PATCH', `/webhooks/${hook.id}`, { url });
        })
        .then(() =>
          t.api('POST', '/flags', { key: `example-${name.replace(/[^a-z]/gi, '')}`, type: 'boolean' }),
        );
    });
    const got = await event;
    expect(got).toMatchObject({
      type: 'flag.updated',
      data: { action: 'created', flag: { key: expect.stringMatching(/^example-/) } },
    });

    const tampered = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-flagwire-signature': `sha256=${'0'.repeat(64)}` },
      body: JSON.stringify(got),
    });
    expect(tampered.status).toBe(400);
    expect(await tampered.text()).toBe('signature_mismatch');
    await t.api('DELETE', `/webhooks/${hook.id}`);
  });
});

describe('quick-start examples', () => {
  it('manages flags, then evaluates them with the client and through OpenFeature', async () => {
    const { manageFlags } = await import('../../../examples/manage-flags.js');
    const { quickStart } = await import('../../../examples/quick-start.js');
    const { openFeatureExample } = await import('../../../examples/openfeature.js');
    const { bucketOf } = await import('../../../src/index.js');
    const { flag } = await manageFlags({ baseUrl: t.base, apiKey: KEYS.acmeProdFull });
    expect(flag).toMatchObject({ key: 'new-checkout', enabled: true, percentage: 25 });
    const expected = bucketOf('new-checkout', 'user-42') <= 25;
    expect(await quickStart({ baseUrl: t.base, apiKey: KEYS.acmeProdRead })).toBe(expected);
    expect(await openFeatureExample({ baseUrl: t.base, apiKey: KEYS.acmeProdRead })).toBe(expected);
    // Running it again finds the flag there and still succeeds.
    await expect(manageFlags({ baseUrl: t.base, apiKey: KEYS.acmeProdFull })).resolves.toBeDefined();
  });

  it('makes a segment and a targeting flag, then serves them locally with why', async () => {
    const { targetingExample } = await import('../../../examples/targeting.js');
    const keys = { baseUrl: t.base, fullKey: KEYS.acmeProdFull, readKey: KEYS.acmeProdRead };
    const expected = [
      { value: 'blue', reason: 'RULE_MATCH', ruleId: 'staff' },
      { value: 'blue', reason: 'RULE_MATCH', ruleId: 'staff' },
      { value: 'red', reason: 'FALLTHROUGH' },
    ];
    expect(await targetingExample(keys)).toMatchObject(expected);
    // Again: the segment and the flag exist, and are updated instead.
    expect(await targetingExample(keys)).toMatchObject(expected);
  });
});
