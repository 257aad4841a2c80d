/** The benchmarks' child processes' side: the IPC command loop, a timed request, a propagation sample. */
import http from 'node:http';
import { performance } from 'node:perf_hooks';

/** Serves `commands` over IPC (`{ id, cmd, ... }` → `{ id, result | error }`), with `cpu` and `close`. */
export function serveCommands({ close, ...commands }) {
  commands.cpu = () => process.cpuUsage();
  commands.close = async () => {
    await close?.();
    setImmediate(() => process.exit(0));
    return true;
  };
  process.on('message', async (msg) => {
    try {
      process.send({ id: msg.id, result: await commands[msg.cmd](msg) });
    } catch (error) {
      process.send({ id: msg.id, error: error?.stack ?? String(error) });
    }
  });
  process.on('disconnect', () => process.exit(0));
}
/**
 * One request through `node:http` (no decoding). Never rejects: `{ status, sentAt, at, ms, headers,
 * body? }`, `at` when the head came, `ms` from sending to the end; `status` `timeout`/`error ...` if none.
 */
export function request(method, url, key, body, options = {}) {
  const { agent, headers: extra, timeoutMs = 30_000, read = false } = options;
  const payload = body === undefined || typeof body === 'string' ? body : JSON.stringify(body);
  const sentAt = performance.now();
  const out = { status: undefined, sentAt, at: undefined, ms: undefined };
  return new Promise((resolve) => {
    const finish = (status) => {
      if (out.status !== undefined) return;
      Object.assign(out, { status, ms: performance.now() - sentAt });
      resolve(out);
    };
    const headers = { ...(key && { authorization: `Bearer ${key}` }), ...extra };
    if (payload !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(payload);
    }
    const req = http.request(url, { method, agent, headers }, (res) => {
      Object.assign(out, { at: performance.now(), headers: res.headers });
      const chunks = [];
      if (read) res.on('data', (chunk) => chunks.push(chunk));
      else res.resume();
      res.on('end', () => {
        if (read) out.body = Buffer.concat(chunks);
        finish(res.statusCode);
      });
    });
    // Whether the call waited on a new connection (not accepted yet) or on one used before.
    const socket = () => (req.reusedSocket ? ' (reused socket)' : ' (new socket)');
    req.setTimeout(timeoutMs, () => {
      finish(`timeout${socket()}`);
      req.destroy();
    });
    req.on('error', (error) => finish(`error ${error.code ?? error.message}${socket()}`));
    req.end(payload);
  });
}
/** PATCH of a flag (`{ url, key }`); throws unless 200. */
export async function patchFlag({ url, key }, flag, body, agent) {
  const r = await request('PATCH', `${url}/api/v1/flags/${encodeURIComponent(flag)}`, key, body, { agent });
  if (r.status !== 200) throw new Error(`PATCH ${flag}: ${r.status}`);
  return r;
}
/** One PATCH's propagation (`util.mjs` `propagationStats`): sent, answered, first and last receiver. */
export const propagationSample = (sentAt, ackAt, first, last) => ({
  toResponseMs: ackAt - sentAt,
  fromResponseMs: last - ackAt,
  fromSendMs: last - sentAt,
  firstFromSendMs: first - sentAt,
});
