/**
 * The fan-out benchmark's client side, in its own process: opens N event streams
 * (`GET /sdk/events`) with raw `node:http`, then issues PATCHes and times how long the
 * last stream takes to receive each resulting `flags:updated` frame. The PATCHes come
 * from this process too, so every timestamp is on one monotonic clock.
 *
 * IPC commands:
 * - `open { url, key, count, batch }` → `{ opened, ms }` once every stream got its first frame.
 * - `patches { url, key, flag, count, gapMs }` → per PATCH: `{ toResponseMs, fromSendMs, fromResponseMs, firstMs }`.
 * - `close` → destroys every stream and exits.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { serveCommands, timedPatch } from './child.mjs';

const streams = [];
/** The PATCH in flight: what every stream must reach, and when the last one did. */
let current;

const agent = new http.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });

function onFrame(stream, frame, at) {
  if (!stream.opened) {
    stream.opened = true;
    stream.onOpen?.();
  }
  if (!frame.includes('event: flags:updated')) return;
  stream.updates += 1;
  if (stream.keepData) stream.lastData = frame.slice(frame.indexOf('data: ') + 6);
  if (current && stream.updates === current.target) {
    current.remaining -= 1;
    if (current.first === undefined) current.first = at;
    if (current.remaining === 0) {
      current.last = at;
      current.done();
    }
  }
}

function openStream(url, key, index) {
  return new Promise((resolve, reject) => {
    const stream = { updates: 0, opened: false, buffer: '', keepData: index === 0, lastData: undefined };
    stream.onOpen = () => resolve(stream);
    const req = http.get(
      `${url}/sdk/events`,
      { agent, headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' } },
      (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`stream ${index}: status ${res.statusCode}`));
          res.resume();
          return;
        }
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          const at = performance.now();
          stream.buffer += chunk;
          let end = stream.buffer.indexOf('\n\n');
          while (end >= 0) {
            const frame = stream.buffer.slice(0, end);
            stream.buffer = stream.buffer.slice(end + 2);
            if (frame.includes('event:')) onFrame(stream, frame, at);
            end = stream.buffer.indexOf('\n\n');
          }
        });
        res.on('error', () => {});
      },
    );
    req.on('error', reject);
    stream.req = req;
    streams.push(stream);
  });
}

const commands = {
  async open({ url, key, count, batch = 100 }) {
    const t0 = performance.now();
    for (let i = 0; i < count; i += batch) {
      const group = [];
      for (let j = i; j < Math.min(count, i + batch); j++) group.push(openStream(url, key, j));
      await Promise.all(group);
    }
    return { opened: streams.length, ms: performance.now() - t0 };
  },
  async patches({ url, key, flag, count, gapMs = 20, timeoutMs = 10_000 }) {
    const results = [];
    // Toggle from the flag's current state, so every PATCH changes something (and emits).
    const current0 = await fetch(`${url}/api/v1/flags/${encodeURIComponent(flag)}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    let { enabled } = await current0.json();
    for (let i = 0; i < count; i++) {
      enabled = !enabled;
      const target = streams[0].updates + 1;
      if (streams.some((s) => s.updates + 1 !== target)) throw new Error('streams are out of step');
      let done;
      const allReceived = new Promise((resolve) => {
        done = resolve;
      });
      current = { target, remaining: streams.length, first: undefined, last: undefined, done };
      const sent = performance.now();
      const responded = await timedPatch(url, key, flag, { enabled });
      const timer = setTimeout(() => done(), timeoutMs);
      await allReceived;
      clearTimeout(timer);
      const { first, last, remaining } = current;
      current = undefined;
      if (remaining > 0)
        throw new Error(
          `PATCH ${i}: ${remaining} of ${streams.length} streams got nothing within ${timeoutMs} ms`,
        );
      const data = JSON.parse(streams[0].lastData);
      if (data.enabled !== enabled)
        throw new Error(`PATCH ${i}: stream saw enabled=${data.enabled}, expected ${enabled}`);
      results.push({
        toResponseMs: responded - sent,
        fromSendMs: last - sent,
        fromResponseMs: last - responded,
        firstFromSendMs: first - sent,
      });
      await new Promise((r) => setTimeout(r, gapMs));
    }
    return results;
  },
  async close() {
    for (const s of streams) s.req.destroy();
    setImmediate(() => process.exit(0));
    return true;
  },
};

serveCommands(commands);
