/**
 * A TCP proxy the test controls, between an SDK client and a server, that injects the
 * faults of a real network: cut connections, silently stalled ones (bytes stop flowing,
 * nothing is closed), delayed bytes, a front that answers `503` for a while, and responses
 * dropped midway.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface TestProxy {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  /** Destroys every open connection (new ones still pass). */
  cutAll(): void;
  /** Stops forwarding bytes on every open connection without closing it; new ones pass. */
  stallAll(): void;
  /** Holds every byte (both ways, order kept) for `ms` before forwarding it; 0 stops delaying. */
  setDelay(ms: number): void;
  /**
   * While on, a new connection is answered `503` with `Retry-After: 1` and a JSON error by the
   * proxy itself (as a load balancer in front of a down service would) and closed.
   */
  setReject(on: boolean): void;
  /**
   * While set, each new connection forwards only the first `limit()` bytes of the server's
   * answer, then both sides are destroyed: a response dropped midway.
   */
  setTruncate(limit: (() => number) | undefined): void;
  /** Number of connections accepted so far. */
  readonly accepted: number;
  close(): Promise<void>;
}

const REJECT_BODY = JSON.stringify({
  error: 'SERVICE_UNAVAILABLE',
  message: 'the proxy rejects connections for a while',
});
const REJECT_RESPONSE =
  'HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\n' +
  `Content-Length: ${Buffer.byteLength(REJECT_BODY)}\r\nConnection: close\r\n\r\n${REJECT_BODY}`;

interface Pair {
  client: Socket;
  upstream: Socket;
  stalled: boolean;
}

/** Forwards `from` to `to`, through a queue when bytes are delayed so their order holds. */
function pipe(pair: Pair, from: Socket, to: Socket, delayMs: () => number, limit: number | undefined) {
  const queue: Array<{ chunk: Buffer; due: number }> = [];
  let left = limit ?? Number.POSITIVE_INFINITY;
  const write = (chunk: Buffer) => {
    if (pair.stalled || to.destroyed || left === 0) return;
    if (chunk.length >= left) {
      to.write(chunk.subarray(0, left), () => {
        pair.client.destroy();
        pair.upstream.destroy();
      });
      left = 0;
      return;
    }
    left -= chunk.length;
    to.write(chunk);
  };
  const drain = () => {
    while (queue.length > 0 && queue[0]!.due <= Date.now()) write(queue.shift()!.chunk);
    if (queue.length > 0) setTimeout(drain, queue[0]!.due - Date.now());
  };
  from.on('data', (chunk: Buffer) => {
    const ms = delayMs();
    if (ms === 0 && queue.length === 0) {
      write(chunk);
      return;
    }
    queue.push({ chunk, due: Date.now() + ms });
    if (queue.length === 1) setTimeout(drain, ms);
  });
}

export async function startProxy(targetPort: number): Promise<TestProxy> {
  const pairs = new Set<Pair>();
  const rejecting = new Set<Socket>();
  let accepted = 0;
  let delayMs = 0;
  let reject = false;
  let truncate: (() => number) | undefined;
  const server: Server = createServer((client) => {
    accepted += 1;
    if (reject) {
      rejecting.add(client);
      client.on('error', () => client.destroy());
      client.on('close', () => rejecting.delete(client));
      client.once('data', () => client.end(REJECT_RESPONSE));
      return;
    }
    const upstream = connect(targetPort, '127.0.0.1');
    const pair: Pair = { client, upstream, stalled: false };
    pairs.add(pair);
    const delay = () => delayMs;
    pipe(pair, client, upstream, delay, undefined);
    pipe(pair, upstream, client, delay, truncate?.());
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
    setDelay(ms) {
      delayMs = ms;
    },
    setReject(on) {
      reject = on;
    },
    setTruncate(limit) {
      truncate = limit;
    },
    close() {
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
      for (const socket of rejecting) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
