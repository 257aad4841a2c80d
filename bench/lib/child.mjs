/**
 * Shared by the benchmarks' child processes: the IPC command loop (`{ id, cmd, ...}` in,
 * `{ id, result | error }` out) and a timed HTTP request.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';

/** Serves `commands[msg.cmd](msg)` over IPC; exits when the parent goes away. */
export function serveCommands(commands) {
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
 * One request with a bearer key (and a JSON body). Never rejects: resolves `{ status, sentAt, at,
 * ms }`, `at` being `performance.now()` when the answer's head arrived and `ms` the time from
 * sending to the end of the answer; `status` is `timeout ...` or `error ...` when none came.
 */
export function request(method, url, key, body, { agent, timeoutMs = 30_000 } = {}) {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const sentAt = performance.now();
  const out = { status: undefined, sentAt, at: undefined, ms: undefined };
  return new Promise((resolve) => {
    const finish = (status) => {
      if (out.status !== undefined) return;
      Object.assign(out, { status, ms: performance.now() - sentAt });
      resolve(out);
    };
    const headers = { authorization: `Bearer ${key}` };
    if (payload !== undefined)
      Object.assign(headers, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(payload),
      });
    const req = http.request(url, { method, agent, headers }, (res) => {
      out.at = performance.now();
      res.resume();
      res.on('end', () => finish(res.statusCode));
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

/** PATCH of a flag (`writes`: `{ url, key }`); throws unless 200. */
export async function patchFlag({ url, key }, flag, body, agent) {
  const r = await request('PATCH', `${url}/api/v1/flags/${encodeURIComponent(flag)}`, key, body, { agent });
  if (r.status !== 200) throw new Error(`PATCH ${flag}: ${r.status}`);
  return r;
}
