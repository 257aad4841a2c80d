/**
 * The client side of the `sdk-propagation` benchmark, in its own process (not the server's):
 * flagwire SDK clients (`createClient` from the build under test, read-only key, default
 * options: snapshot, then the event stream through the global `fetch`), plus, for a baseline,
 * raw `node:http` readers of the same stream. The PATCHes are sent from this process too
 * (`node:http`, its own keep-alive agent, not the clients' `fetch`), so every timestamp is on
 * one monotonic clock.
 *
 *   node bench/sdk-lib/propagation-clients.mjs   (IPC; argv[2] = JSON `{ sdkUrl }`)
 *
 * IPC commands:
 * - `open { baseUrl, key, flag, count, batch }` → adds `count` SDK clients, resolves once each is
 *   ready and its stream connected: `{ clients, ms, fetchDispatcher }`.
 * - `closeClients { keep }` → closes every SDK client after the first `keep`.
 * - `rawOpen { url, key, count }` / `rawClose` → raw SSE readers (`GET /sdk/events`).
 * - `patches { url, key, flag, count, gapMs, timeoutMs, target }` → `count` PATCHes toggling
 *   `enabled`, one at a time; `target` `sdk` waits until every SDK client's `change:<flag>`
 *   listener has seen `isEnabled(flag)` flip, `raw` until every raw reader got the frame.
 *   Per PATCH: `{ toResponseMs, fromSendMs, fromResponseMs, firstFromSendMs, firstFromResponseMs }`.
 * - `close` → closes everything and exits.
 */
import { execSync } from 'node:child_process';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { serveCommands, timedPatch } from '../lib/child.mjs';

const { sdkUrl } = JSON.parse(process.argv[2] ?? '{}');
const { createClient } = await import(sdkUrl);

/** The user every listener evaluates for (the flag is boolean: every user sees the flip). */
const USER = { key: 'user-42' };

/** `{ client, listenerAt }` per SDK client, in order of creation. */
const clients = [];
const raws = [];
/** The PATCH in flight: `{ expected, remaining, first, last, done, target }`. */
let current;
const warnings = { count: 0, last: undefined };
const logger = {
  warn(m) {
    warnings.count += 1;
    warnings.last = m;
  },
  error(m) {
    warnings.count += 1;
    warnings.last = m;
  },
};

function arrived(at) {
  if (current.first === undefined) current.first = at;
  current.remaining -= 1;
  if (current.remaining === 0) {
    current.last = at;
    current.done();
  }
}

/** One SDK client, ready with its stream connected; its `change:<flag>` listener feeds `current`. */
async function openClient(baseUrl, key, flag) {
  const client = createClient({ baseUrl, apiKey: key, logger });
  const entry = { client, seen: undefined };
  client.on(`change:${flag}`, () => {
    const at = performance.now();
    if (current?.target !== 'sdk') return;
    const value = client.isEnabled(flag, USER);
    // Count each client once per PATCH, when its answer is the new one.
    if (value === current.expected && entry.seen !== current.seq) {
      entry.seen = current.seq;
      arrived(at);
    }
  });
  const connected = new Promise((resolve, reject) => {
    const check = () => {
      const state = client.status().state;
      if (state === 'connected') resolve();
      else if (state === 'failed' || state === 'closed') reject(new Error(`client state ${state}`));
    };
    client.on('status', check);
    check();
  });
  await client.ready({ timeoutMs: 30_000 });
  await connected;
  clients.push(entry);
  return entry;
}

/** What the global `fetch` (undici's global dispatcher) allows per origin, and what it holds. */
function fetchDispatcher(origin) {
  const agent = globalThis[Symbol.for('undici.globalDispatcher.1')];
  if (!agent) return { agent: 'none yet' };
  const sym = (o, name) => Object.getOwnPropertySymbols(o).find((s) => s.description === name);
  const options = agent[sym(agent, 'options')] ?? {};
  const pools = agent[sym(agent, 'clients')];
  let pool = pools?.get(origin);
  if (pool && typeof pool.deref === 'function') pool = pool.deref();
  const poolClients = pool ? pool[sym(pool, 'clients')] : undefined;
  const poolConnections = pool ? pool[sym(pool, 'connections')] : undefined;
  return {
    agent: agent.constructor?.name,
    connectionsOption: options.connections ?? null,
    poolConnectionsLimit: poolConnections ?? null,
    connectionsToOrigin: Array.isArray(poolClients) ? poolClients.length : undefined,
  };
}

function openRaw(url, key) {
  return new Promise((resolve, reject) => {
    const raw = { buffer: '', req: undefined, seen: undefined };
    const req = http.get(
      `${url}/sdk/events`,
      { agent: false, headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' } },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          reject(new Error(`raw stream: status ${res.statusCode}`));
          return;
        }
        res.setEncoding('utf8');
        let opened = false;
        res.on('data', (chunk) => {
          const at = performance.now();
          raw.buffer += chunk;
          let end = raw.buffer.indexOf('\n\n');
          while (end >= 0) {
            const frame = raw.buffer.slice(0, end);
            raw.buffer = raw.buffer.slice(end + 2);
            if (!opened) {
              opened = true;
              resolve(raw);
            }
            if (
              current?.target === 'raw' &&
              raw.seen !== current.seq &&
              frame.includes('event: flags:updated')
            ) {
              raw.seen = current.seq;
              arrived(at);
            }
            end = raw.buffer.indexOf('\n\n');
          }
        });
        res.on('error', () => {});
      },
    );
    req.on('error', reject);
    raw.req = req;
    raws.push(raw);
  });
}

let seq = 0;
/** The flag's state as the first SDK client sees it (or `false` before any client exists). */
let enabledNow = false;

const commands = {
  async open({ baseUrl, key, flag, count, batch = 50 }) {
    const t0 = performance.now();
    for (let i = 0; i < count; i += batch) {
      const group = [];
      for (let j = i; j < Math.min(count, i + batch); j++) group.push(openClient(baseUrl, key, flag));
      await Promise.all(group);
    }
    enabledNow = clients[0].client.isEnabled(flag, USER);
    return {
      clients: clients.length,
      ms: performance.now() - t0,
      fetchDispatcher: fetchDispatcher(new URL(baseUrl).origin),
      fdLimit: execSync('ulimit -n', { shell: '/bin/sh', encoding: 'utf8' }).trim(),
    };
  },
  async closeClients({ keep }) {
    const gone = clients.splice(keep);
    await Promise.all(gone.map((c) => c.client.close()));
    return { clients: clients.length };
  },
  async rawOpen({ url, key, count }) {
    const t0 = performance.now();
    const opened = [];
    for (let i = 0; i < count; i++) opened.push(openRaw(url, key));
    await Promise.all(opened);
    return { raws: raws.length, ms: performance.now() - t0 };
  },
  async rawClose() {
    for (const r of raws.splice(0)) r.req.destroy();
    return { raws: 0 };
  },
  async patches({ url, key, flag, count, gapMs = 50, timeoutMs = 30_000, target, startEnabled }) {
    const waitingFor = target === 'raw' ? raws.length : clients.length;
    if (waitingFor === 0) throw new Error(`no ${target} receivers open`);
    if (startEnabled !== undefined) enabledNow = startEnabled;
    const results = [];
    for (let i = 0; i < count; i++) {
      const expected = !enabledNow;
      let done;
      const all = new Promise((resolve) => {
        done = resolve;
      });
      seq += 1;
      current = { seq, target, expected, remaining: waitingFor, first: undefined, last: undefined, done };
      const sent = performance.now();
      const responded = await timedPatch(url, key, flag, { enabled: expected });
      const timer = setTimeout(() => done(), timeoutMs);
      await all;
      clearTimeout(timer);
      const { first, last, remaining } = current;
      current = undefined;
      if (remaining > 0) {
        throw new Error(
          `PATCH ${i + 1}: ${remaining} of ${waitingFor} ${target} receivers saw nothing within ${timeoutMs} ms`,
        );
      }
      enabledNow = expected;
      results.push({
        toResponseMs: responded - sent,
        fromSendMs: last - sent,
        fromResponseMs: last - responded,
        firstFromSendMs: first - sent,
        firstFromResponseMs: first - responded,
      });
      await new Promise((r) => setTimeout(r, gapMs));
    }
    return { results, enabled: enabledNow, warnings: { ...warnings } };
  },
  async close() {
    for (const r of raws.splice(0)) r.req.destroy();
    await Promise.all(clients.splice(0).map((c) => c.client.close()));
    setImmediate(() => process.exit(0));
    return true;
  },
};

serveCommands(commands);
