/**
 * The baseline of the `GET /sdk/flags` benchmark: a bare `node:http` server that answers
 * the very bytes the reference server answered (same status, headers, body), with no
 * routing, auth or ETag logic beyond one string comparison for the 304.
 *
 * IPC: `start { responses: { ok: {status, headers, body(base64)}, notModified?: {...}, etag } }`
 * → `{ url }`; `cpu` → `process.cpuUsage()`; `close`.
 */
import { createServer } from 'node:http';
import { serveCommands } from './child.mjs';

let server;

const commands = {
  async start({ responses }) {
    const ok = { ...responses.ok, body: Buffer.from(responses.ok.body, 'base64') };
    const notModified = responses.notModified;
    const etag = responses.etag;
    // Same timeouts as the reference server, so connection handling is alike.
    server = createServer(
      { requestTimeout: 30_000, headersTimeout: 20_000, keepAliveTimeout: 5_000 },
      (req, res) => {
        if (notModified && req.headers['if-none-match'] === etag) {
          res.writeHead(notModified.status, notModified.headers);
          res.end();
        } else {
          res.writeHead(ok.status, ok.headers);
          res.end(ok.body);
        }
      },
    );
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${server.address().port}` };
  },
  async memory() {
    return { ...process.memoryUsage(), streamCount: 0 };
  },
  async cpu() {
    return process.cpuUsage();
  },
  async close() {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve) ?? resolve());
    setImmediate(() => process.exit(0));
    return true;
  },
};

serveCommands(commands);
