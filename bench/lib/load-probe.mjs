/**
 * Management-API latency probe of the stream-load benchmark, in a process of its own (so a
 * busy reader process does not inflate the figures): every `gapMs`, one `GET <list>` and one
 * `PATCH <patch>` (a new description each time, so every one commits), each timed from sending
 * to the end of the answer. A
 * call does not wait for the previous one, so a slow server shows as latency, not as fewer calls.
 *
 * IPC commands: `start { list: { url, key }, patch: { url, key }, gapMs, timeoutMs }`;
 * `stop` → `[{ call, atEpoch, ms, status }]` (status `timeout` or `error` when there was no
 * answer), after the calls in flight ended.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { serveCommands } from './child.mjs';

// Idle sockets are dropped after 2 s, well before the server's 5 s keep-alive timeout, so that
// a call never races the server closing the idle socket it reuses (an ECONNRESET of our making).
const agent = new http.Agent({ keepAlive: true, maxSockets: 16, timeout: 2000 });
let run;

function timedCall(name, method, url, key, body, timeoutMs) {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const t0 = performance.now();
  const sample = { call: name, atEpoch: performance.timeOrigin + t0, ms: undefined, status: undefined };
  return new Promise((resolve) => {
    const finish = (status) => {
      if (sample.status !== undefined) return;
      sample.status = status;
      sample.ms = performance.now() - t0;
      resolve(sample);
    };
    const req = http.request(
      url,
      {
        method,
        agent,
        headers: {
          authorization: `Bearer ${key}`,
          ...(payload === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => finish(res.statusCode));
      },
    );
    req.setTimeout(timeoutMs, () => {
      // Whether the call waited on a fresh connection the server had not accepted yet, or on
      // one it had used before.
      finish(`timeout (${req.reusedSocket ? 'reused socket' : 'new socket'})`);
      req.destroy();
    });
    req.on('error', (error) =>
      finish(`error ${error.code ?? error.message}${req.reusedSocket ? ' (reused socket)' : ''}`),
    );
    req.end(payload);
  });
}

const commands = {
  async start({ list, patch, gapMs = 20, timeoutMs = 10_000 }) {
    run = { samples: [], pending: new Set(), timer: undefined };
    let n = 0;
    const track = (p) => {
      run.pending.add(p);
      p.then((s) => {
        run.samples.push(s);
        run.pending.delete(p);
      });
    };
    const tick = () => {
      track(timedCall('list', 'GET', list.url, list.key, undefined, timeoutMs));
      n += 1;
      track(timedCall('patch', 'PATCH', patch.url, patch.key, { description: `probe ${n}` }, timeoutMs));
    };
    tick();
    run.timer = setInterval(tick, gapMs);
    return true;
  },
  async stop() {
    clearInterval(run.timer);
    await Promise.all(run.pending);
    const { samples } = run;
    run = undefined;
    return samples;
  },
};

serveCommands(commands);
