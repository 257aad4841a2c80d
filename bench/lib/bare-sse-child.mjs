/**
 * The baseline of the fan-out benchmark: the least a `node:http` SSE server can do.
 * `GET /sdk/events` opens a stream (same headers and first frame as the reference
 * server); `PATCH /api/v1/flags/:key` with `{ enabled }` writes one `flags:updated`
 * frame to every open stream, then answers 200 (like the reference server in memory
 * mode, which writes the frames before answering); `GET /api/v1/flags/:key` gives the
 * flag's state. No auth, no validation, no history.
 *
 * IPC: `start { firstFrame, flag }` → `{ url }`; `memory` → `process.memoryUsage()` after
 * GC plus `streamCount`; `cpu` → `process.cpuUsage()`; `close`.
 */
import { createServer } from 'node:http';
import { serveCommands } from './child.mjs';

const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
  'access-control-allow-origin': '*',
};

let server;
const streams = new Set();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const commands = {
  async start({ firstFrame, flag }) {
    const state = { key: flag, type: 'rollout', enabled: false, percentage: 50 };
    let revision = 0;
    server = createServer(
      { requestTimeout: 30_000, headersTimeout: 20_000, keepAliveTimeout: 5_000 },
      (req, res) => {
        if (req.method === 'GET' && req.url.startsWith('/sdk/events')) {
          req.socket.setKeepAlive(true, 30_000);
          req.socket.setNoDelay(true);
          res.writeHead(200, SSE_HEADERS);
          streams.add(res);
          res.once('close', () => streams.delete(res));
          res.write(firstFrame);
          return;
        }
        if (req.method === 'GET') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(state));
          return;
        }
        let body = '';
        req.setEncoding('utf8');
        req.on('data', (c) => {
          body += c;
        });
        req.on('end', () => {
          state.enabled = JSON.parse(body).enabled;
          revision += 1;
          const frame = `id: bare:${revision}\nevent: flags:updated\ndata: ${JSON.stringify(state)}\n\n`;
          for (const stream of streams) stream.write(frame);
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(state));
        });
      },
    );
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${server.address().port}`, keys: [] };
  },
  async memory() {
    globalThis.gc?.();
    await sleep(50);
    globalThis.gc?.();
    return { ...process.memoryUsage(), streamCount: streams.size };
  },
  async cpu() {
    return process.cpuUsage();
  },
  async close() {
    for (const stream of streams) stream.end();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve) ?? resolve());
    setImmediate(() => process.exit(0));
    return true;
  },
};

serveCommands(commands);
