/**
 * The client side of `sdk-propagation` (argv[2]: the SDK's URL): SDK clients with default options,
 * and the PATCHes, so every time is on one clock.
 */
import { performance } from 'node:perf_hooks';
import { patchFlag, propagationSample, serveCommands } from './child.mjs';

const { createClient } = await import(process.argv[2]);
/** The user every listener evaluates for (the flag is boolean: every user sees the flip). */
const USER = { key: 'user-42' };
const clients = [];
/** The PATCH in flight: `{ seq, expected, remaining, first, last, done }`. */
let current;
const warnings = { count: 0, last: undefined };
const warn = (m) => Object.assign(warnings, { count: warnings.count + 1, last: String(m) });
/** One SDK client, ready with its stream connected; its `change:<flag>` listener feeds `current`. */
async function openClient(baseUrl, key, flag) {
  const client = createClient({ baseUrl, apiKey: key, logger: { warn, error: warn } });
  const entry = { client, seen: undefined };
  client.on(`change:${flag}`, () => {
    const at = performance.now();
    // Each client counts once per PATCH, when its answer is the new one.
    if (!current || client.isEnabled(flag, USER) !== current.expected || entry.seen === current.seq) return;
    entry.seen = current.seq;
    current.first ??= at;
    if (--current.remaining > 0) return;
    current.last = at;
    current.done();
  });
  const connected = new Promise((resolve, reject) => {
    const check = () => {
      const { state } = client.status();
      if (state === 'connected') resolve();
      else if (state === 'failed' || state === 'closed') reject(new Error(`client state ${state}`));
    };
    client.on('status', check);
    check();
  });
  await client.ready({ timeoutMs: 30_000 });
  await connected;
  clients.push(entry);
}
let seq = 0;
serveCommands({
  async open({ baseUrl, key, flag, count }) {
    const t0 = performance.now();
    const open = () => openClient(baseUrl, key, flag);
    for (let i = 0; i < count; i += 50)
      await Promise.all(Array.from({ length: Math.min(50, count - i) }, open));
    return { clients: clients.length, ms: performance.now() - t0 };
  },
  async closeClients({ keep }) {
    await Promise.all(clients.splice(keep).map((c) => c.client.close()));
    return clients.length;
  },
  async patches({ url, key, flag, count, gapMs }) {
    const results = [];
    for (let i = 0; i < count; i++) {
      const expected = !clients[0].client.isEnabled(flag, USER);
      let done;
      const all = new Promise((resolve) => (done = resolve));
      current = { seq: ++seq, expected, remaining: clients.length, done };
      const sent = performance.now();
      const { at: responded } = await patchFlag({ url, key }, flag, { enabled: expected });
      const timer = setTimeout(done, 30_000);
      await all;
      clearTimeout(timer);
      const { first, last, remaining } = current;
      current = undefined;
      if (remaining > 0)
        throw new Error(`PATCH ${i + 1}: ${remaining} of ${clients.length} clients saw nothing in 30 s`);
      results.push(propagationSample(sent, responded, first, last));
      await new Promise((r) => setTimeout(r, gapMs));
    }
    return { results, warnings };
  },
  close: () => Promise.all(clients.splice(0).map((c) => c.client.close())),
});
