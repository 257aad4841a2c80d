/**
 * A TCP front between a browser and a test server that the test can take away and bring back
 * on the same address, as a server that stops and starts again looks from the page: while it is
 * down the port refuses connections (`ECONNREFUSED`) and every open connection, event streams
 * included, is cut. While it refuses, it answers every new connection `503` with a JSON error
 * itself, as a load balancer in front of a stopped service does. The page's `Origin` names the
 * front, which the server takes only as its `publicUrl` (`docs/protocol.md` §10.2): start the
 * front first, with the server's port given once known, and the server with the front's URL.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface TestFront {
  /** `http://127.0.0.1:PORT`, the same for the front's whole life. */
  url: string;
  /** Cuts every connection and stops listening: new connections are refused. */
  down(): Promise<void>;
  /** Listens again on the same port and forwards as before. */
  up(): Promise<void>;
  /** While on, new connections get a `503` from the front itself (open ones are cut). */
  refuse(on: boolean): void;
  close(): Promise<void>;
}

const REFUSAL_BODY = JSON.stringify({
  error: 'SERVICE_UNAVAILABLE',
  message: 'The service is unavailable.',
});
const REFUSAL =
  'HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n' +
  `Content-Length: ${Buffer.byteLength(REFUSAL_BODY)}\r\nConnection: close\r\n\r\n${REFUSAL_BODY}`;

/** `targetPort`: the server's port, or a function answering it when a connection comes. */
export async function startFront(targetPort: number | (() => number)): Promise<TestFront> {
  const target = typeof targetPort === 'number' ? () => targetPort : targetPort;
  const sockets = new Set<Socket>();
  let refusing = false;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const cutAll = () => {
    for (const socket of sockets) socket.destroy();
  };
  const server: Server = createServer((client) => {
    track(client);
    if (refusing) {
      client.once('data', () => client.end(REFUSAL));
      return;
    }
    const upstream = connect(target(), '127.0.0.1');
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      cutAll();
    });
  await listen(0);
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    down: stop,
    up: () => listen(port),
    refuse(on) {
      refusing = on;
      if (on) cutAll();
    },
    close: () => (server.listening ? stop() : Promise.resolve()),
  };
}
