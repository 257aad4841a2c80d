/**
 * The IPC commands every server child answers (`server-child.mjs`, `load-server-child.mjs`):
 * `start { options }` → `{ url, keys }`; `memory` → `process.memoryUsage()` after a full GC
 * (with `--expose-gc`) plus `streamCount`; `cpu` → `process.cpuUsage()`; `close` → closes the
 * server and exits (so a `--cpu-prof` profile is written). `current()` is the running server.
 */
const { startServer } = await import(process.env.FLAGWIRE_SERVER_MODULE_URL);

let server;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function settledMemory() {
  if (typeof globalThis.gc !== 'function') return { ...process.memoryUsage(), gc: false };
  // Two full collections a tick apart, so objects freed by finalizers/weak callbacks go too.
  globalThis.gc();
  await sleep(50);
  globalThis.gc();
  return { ...process.memoryUsage(), gc: true };
}

/** The running server, if any. */
export const current = () => server;

export const serverCommands = {
  async start({ options }) {
    server = await startServer({ port: 0, logger: false, ...options });
    return { url: server.url, keys: server.keys };
  },
  async memory() {
    const usage = await settledMemory();
    return { ...usage, streamCount: server?.streamCount ?? 0 };
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
