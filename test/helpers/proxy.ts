/**
 * A TCP proxy the test controls, between an SDK client and a server: cut every connection,
 * or stall them silently (bytes stop flowing, nothing is closed).
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface TestProxy {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  /** Destroys every open connection (new ones still pass). */
  cutAll(): void;
  /** Stops forwarding bytes on every open connection without closing it; new ones pass. */
  stallAll(): void;
  /** Number of connections accepted so far. */
  readonly accepted: number;
  close(): Promise<void>;
}

export async function startProxy(targetPort: number): Promise<TestProxy> {
  const pairs = new Set<{ client: Socket; upstream: Socket; stalled: boolean }>();
  let accepted = 0;
  const server: Server = createServer((client) => {
    accepted += 1;
    const upstream = connect(targetPort, '127.0.0.1');
    const pair = { client, upstream, stalled: false };
    pairs.add(pair);
    const forward = (from: Socket, to: Socket) =>
      from.on('data', (chunk) => {
        if (!pair.stalled) to.write(chunk);
      });
    forward(client, upstream);
    forward(upstream, client);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    get accepted() {
      return accepted;
    },
    cutAll() {
      for (const { client, upstream } of [...pairs]) {
        client.destroy();
        upstream.destroy();
      }
    },
    stallAll() {
      for (const pair of pairs) pair.stalled = true;
    },
    close() {
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
