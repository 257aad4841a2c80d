/** The measuring process of `webhooks`: `webhooks-child.mjs DIST_DIR verify|delivery` → one JSON line. */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { median, tempDir } from './util.mjs';

const [distDir, mode] = process.argv.slice(2);
const load = (file) => import(pathToFileURL(resolve(distDir, file)).href);
async function verify() {
  const web = await load('index.js');
  const nodeBuild = await load('index.node.js');
  const secret = 'whsec_benchbenchbenchbenchbenchbenchbenchbench';
  const body = Buffer.from(JSON.stringify({ pad: 'x'.repeat(1010) }).slice(0, 1024));
  const header = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  const baseline = (raw, sig) => {
    const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`);
    const given = Buffer.from(sig);
    return expected.length === given.length && timingSafeEqual(expected, given);
  };
  const cases = {
    baseline: () => baseline(body, header),
    node: () => nodeBuild.verifySignature(body, header, secret),
    web: () => web.verifySignature(body, header, secret),
  };
  for (const fn of Object.values(cases)) if (!fn()) throw new Error('a verifier rejected a valid signature');
  const rates = { baseline: [], node: [], web: [] };
  for (let round = 0; round < 7; round++)
    for (const [name, fn] of Object.entries(cases)) {
      let n = 0;
      const start = performance.now();
      while (performance.now() - start < 300) {
        for (let i = 0; i < 100; i++) fn();
        n += 100;
      }
      rates[name].push(n / ((performance.now() - start) / 1000));
    }
  return Object.fromEntries(Object.entries(rates).map(([k, v]) => [k, median(v)]));
}
async function delivery() {
  const { startServer } = await load('server.js');
  const events = Number(process.env.FLAGWIRE_BENCH_WEBHOOK_EVENTS ?? 2000);
  const concurrency = 16;
  let received = 0;
  let allReceived;
  const done = new Promise((r) => (allReceived = r));
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(204).end();
      if (++received === events) allReceived();
    });
  });
  await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
  const receiverUrl = `http://127.0.0.1:${receiver.address().port}/`;

  const measure = async (withWebhook) => {
    const server = await startServer({ dataDir: tempDir('webhooks'), logger: false });
    const key = server.keys.find((k) => k.access === 'full').key;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const call = async (method, path, body) => {
      const res = await fetch(`${server.url}/api/v1${path}`, { method, headers, body: JSON.stringify(body) });
      await res.arrayBuffer();
    };
    for (let f = 0; f < concurrency; f++) await call('POST', '/flags', { key: `f${f}`, type: 'boolean' });
    if (withWebhook)
      await call('POST', '/webhooks', { url: receiverUrl, events: ['flag.enabled', 'flag.disabled'] });
    received = 0;
    const start = performance.now();
    // Every PATCH flips the flag, so every PATCH is a change and an event.
    const writer = async (_, f) => {
      for (let i = f, k = 0; i < events; i += concurrency, k++)
        await call('PATCH', `/flags/f${f}`, { enabled: k % 2 === 0 });
    };
    await Promise.all(Array.from({ length: concurrency }, writer));
    const acked = performance.now() - start;
    if (withWebhook) await done;
    const total = performance.now() - start;
    await server.close();
    return { ackedMs: acked, totalMs: total, perSecond: events / (total / 1000) };
  };
  const without = await measure(false);
  const withHooks = await measure(true);
  receiver.close();
  return { events, concurrency, without, with: withHooks };
}
const result = mode === 'verify' ? await verify() : await delivery();
process.stdout.write(`${JSON.stringify(result)}\n`);
