/** A round-robin TCP front, as a load balancer: a connection stays with its backend; it costs the copying. */
import net from 'node:net';
import { serveCommands } from './child.mjs';

let server;
let backends = [];
let turn = 0;
const routed = [];
const sockets = new Set();
function forward(client) {
  const i = turn++ % backends.length;
  routed[i] = (routed[i] ?? 0) + 1;
  const upstream = net.connect({ ...backends[i], noDelay: true });
  for (const s of [client, upstream]) {
    sockets.add(s);
    s.on('error', () => {});
    s.once('close', () => {
      sockets.delete(s);
      client.destroy();
      upstream.destroy();
    });
  }
  client.pipe(upstream);
  upstream.pipe(client);
}
serveCommands({
  async start({ backends: urls }) {
    backends = urls.map((u) => {
      const { hostname, port } = new URL(u);
      return { host: hostname, port: Number(port) };
    });
    server = net.createServer({ noDelay: true }, forward);
    await new Promise((resolve) => server.listen(0, '127.0.0.1', 4096, resolve));
    return { url: `http://127.0.0.1:${server.address().port}` };
  },
  routed: () => backends.map((_, i) => routed[i] ?? 0),
  async close() {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve()));
  },
});
