/**
 * Shared by the benchmark child processes: the IPC command loop (`{id, cmd, ...}` in,
 * `{id, result | error}` out) and a timed PATCH of one flag.
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

const patchAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/** PATCHes `flag` with `body`; resolves `performance.now()` when the 200's head arrived. */
export function timedPatch(url, key, flag, body) {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${url}/api/v1/flags/${encodeURIComponent(flag)}`,
      {
        method: 'PATCH',
        agent: patchAgent,
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        const at = performance.now();
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () =>
          res.statusCode === 200 ? resolve(at) : reject(new Error(`PATCH: ${res.statusCode} ${text}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
