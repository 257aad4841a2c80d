/**
 * A server of the benchmarks in its own process: the reference server, or a baseline (`bare`); with
 * `track`, its open event streams, and every cut of one (`destroy()` while open).
 */
import http from 'node:http';
import { serveCommands } from './child.mjs';

let server;
let closeServer;
const streams = new Set();
const cuts = [];
function track() {
  const { writeHead, destroy } = http.ServerResponse.prototype;
  http.ServerResponse.prototype.writeHead = function trackedWriteHead(status, ...rest) {
    if (status === 200 && this.req?.url?.includes('/sdk/events')) {
      streams.add(this);
      this.once('close', () => streams.delete(this));
    }
    return writeHead.call(this, status, ...rest);
  };
  http.ServerResponse.prototype.destroy = function trackedDestroy(...args) {
    if (streams.has(this) && !this.destroyed) cuts.push({ at: Date.now(), buffered: this.writableLength });
    return destroy.apply(this, args);
  };
}
const listen = async (handler) => {
  // The reference server's timeouts, so connections are handled alike.
  const options = { requestTimeout: 30_000, headersTimeout: 20_000, keepAliveTimeout: 5000 };
  const bare = http.createServer(options, handler);
  await new Promise((resolve) => bare.listen(0, '127.0.0.1', resolve));
  closeServer = async () => {
    for (const s of streams) s.end();
    bare.closeAllConnections();
    await new Promise((resolve) => bare.close(resolve));
  };
  return { url: `http://127.0.0.1:${bare.address().port}` };
};
function bareResponses({ ok, notModified, etag }) {
  const body = Buffer.from(ok.body, 'base64');
  return listen((req, res) => {
    if (req.headers['if-none-match'] === etag) res.writeHead(notModified.status, notModified.headers).end();
    else res.writeHead(ok.status, ok.headers).end(body);
  });
}
function bareSse({ flag, others }) {
  const state = { key: flag, type: 'boolean', enabled: false, version: 1 };
  const flags = { [flag]: state };
  for (let i = 0; i < others; i++)
    flags[`other-${i}`] = { key: `other-${i}`, type: 'boolean', enabled: false };
  const sync = JSON.stringify({ revision: 0, epoch: 'bare', eventId: 'bare:0', flags });
  const firstFrame = `retry: 1000\n\nid: bare:0\nevent: flags:sync\ndata: ${sync}\n\n`;
  let revision = 0;
  return listen((req, res) => {
    if (req.method === 'GET' && req.url.includes('/sdk/events')) {
      req.socket.setNoDelay(true);
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
        'access-control-allow-origin': '*',
      });
      res.write(firstFrame);
      return;
    }
    let body = '';
    req.setEncoding('utf8').on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      if (req.method === 'PATCH') {
        state.enabled = JSON.parse(body).enabled;
        state.version = ++revision;
        const frame = `id: bare:${revision}\nevent: flags:updated\ndata: ${JSON.stringify(state)}\n\n`;
        for (const stream of streams) stream.write(frame);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(state));
    });
  });
}
serveCommands({
  async start({ module, options, track: tracked, bare }) {
    if (tracked || bare?.sse) track();
    if (bare?.responses) return bareResponses(bare.responses);
    if (bare?.sse) return bareSse(bare.sse);
    const { startServer } = await import(module);
    server = await startServer({ port: 0, logger: false, ...options });
    closeServer = () => server.close();
    return { url: server.url };
  },
  /** Resolves once `count` streams are open. */
  async streams({ count, timeoutMs }) {
    for (const t0 = Date.now(); streams.size !== count; await new Promise((r) => setTimeout(r, 10)))
      if (Date.now() - t0 > timeoutMs) throw new Error(`${streams.size} streams open, not ${count}`);
    return count;
  },
  /** After two full GCs, a turn of the event loop between them (what finalizers free goes too). */
  async memory() {
    globalThis.gc?.();
    await new Promise(setImmediate);
    globalThis.gc?.();
    return { ...process.memoryUsage(), streams: streams.size };
  },
  /** Memory without GC, and the bytes the open streams have not sent. */
  sample() {
    let buffered = 0;
    for (const res of streams) buffered += res.writableLength;
    return { at: Date.now(), ...process.memoryUsage(), streams: streams.size, buffered };
  },
  cuts: ({ since = 0 }) => cuts.filter((c) => c.at >= since),
  close: () => closeServer?.(),
});
