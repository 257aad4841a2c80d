/**
 * The server of the stream-load benchmark: a flagwire reference server in its own process,
 * like `server-child.mjs`, plus instrumentation of its event streams, done here in the
 * benchmark's process and not in the server's code:
 *
 * - every `200` answer to `GET /sdk/events` is tracked while open, so a sample can sum the
 *   bytes the server holds unsent for streams (`writableLength`), and
 * - every `destroy()` of such an answer while it is open is recorded with the time and the
 *   unsent bytes at that moment. The hub destroys a stream only when its client does not
 *   read (`streamMaxBufferedBytes`); a client leaving closes the socket without it.
 *
 * IPC commands: `start { options }` → `{ url, keys }`; `memory` → `process.memoryUsage()` after a
 * full GC plus `streamCount`; `sample` → memory without GC, stream count and unsent stream bytes;
 * `cuts { since }` → the recorded cuts (epoch ms ≥ `since`); `cpu`; `close`.
 */
import http from 'node:http';
import { serveCommands } from './child.mjs';

const { startServer } = await import(process.env.FLAGWIRE_SERVER_MODULE_URL);

/** Open event-stream answers. */
const streams = new Set();
/** `{ at, buffered }` per stream the server destroyed while it was open. */
const cuts = [];

const writeHead = http.ServerResponse.prototype.writeHead;
http.ServerResponse.prototype.writeHead = function trackedWriteHead(status, ...rest) {
  if (status === 200 && this.req?.url?.startsWith('/sdk/events')) {
    streams.add(this);
    this.once('close', () => streams.delete(this));
  }
  return writeHead.call(this, status, ...rest);
};

const destroy = http.ServerResponse.prototype.destroy;
http.ServerResponse.prototype.destroy = function trackedDestroy(...args) {
  if (streams.has(this) && !this.destroyed) cuts.push({ at: Date.now(), buffered: this.writableLength });
  return destroy.apply(this, args);
};

let server;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function settledMemory() {
  // Two full collections a tick apart, so objects freed by finalizers/weak callbacks go too.
  globalThis.gc?.();
  await sleep(50);
  globalThis.gc?.();
  return process.memoryUsage();
}

const commands = {
  async start({ options }) {
    server = await startServer({ port: 0, logger: false, ...options });
    return { url: server.url, keys: server.keys };
  },
  async memory() {
    return { ...(await settledMemory()), streamCount: server?.streamCount ?? 0 };
  },
  async sample() {
    let buffered = 0;
    let maxBuffered = 0;
    for (const res of streams) {
      buffered += res.writableLength;
      if (res.writableLength > maxBuffered) maxBuffered = res.writableLength;
    }
    return {
      at: Date.now(),
      ...process.memoryUsage(),
      streamCount: server?.streamCount ?? 0,
      streamBufferedBytes: buffered,
      maxStreamBufferedBytes: maxBuffered,
    };
  },
  async cuts({ since = 0 }) {
    return cuts.filter((c) => c.at >= since);
  },
  async cpu() {
    return process.cpuUsage();
  },
  async close() {
    await server?.close();
    server = undefined;
    setImmediate(() => process.exit(0));
    return true;
  },
};

serveCommands(commands);
