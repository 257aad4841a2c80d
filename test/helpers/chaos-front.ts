/**
 * The chaos suite's front for several server instances: a TCP load balancer on one stable
 * loopback port. Each new connection goes to the next live instance, round robin; an instance
 * taken out of the rotation gets no new connections, and the ones it holds drop when it dies
 * (as behind a real balancer, clients and writers reconnect). Plain TCP: it never reads HTTP.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface ChaosFront {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  port: number;
  /** Puts the instance listening on `port` into the rotation, under `id`. */
  add(id: number, port: number): void;
  /** Takes instance `id` out of the rotation; its open connections stay until it closes them. */
  remove(id: number): void;
  /**
   * The instance in the rotation that most recently got bytes from a client (a request: right
   * after a writer sent one, most likely that one), if any did.
   */
  lastRequested(): number | undefined;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Connections each instance got, by id (instances out of the rotation included). */
  readonly routed: ReadonlyMap<number, number>;
  close(): Promise<void>;
}

export async function startFront(): Promise<ChaosFront> {
  /** The rotation, in the order instances joined it. */
  const backends = new Map<number, { port: number; lastRequest: number }>();
  const sockets = new Set<Socket>();
  const routed = new Map<number, number>();
  let accepted = 0;
  let turn = 0;
  let requests = 0;

  /** Connects `client` to the next live instance; one that refuses is skipped (it just died). */
  const route = (client: Socket, tries: number) => {
    const live = [...backends.entries()];
    if (client.destroyed) return;
    if (live.length === 0 || tries >= live.length) {
      client.destroy();
      return;
    }
    const [id, backend] = live[turn++ % live.length]!;
    const upstream = connect(backend.port, '127.0.0.1');
    sockets.add(upstream);
    upstream.setNoDelay(true);
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      routed.set(id, (routed.get(id) ?? 0) + 1);
      if (client.destroyed) {
        upstream.destroy();
        return;
      }
      client.on('data', () => {
        requests += 1;
        const current = backends.get(id);
        if (current) current.lastRequest = requests;
      });
      client.pipe(upstream);
      upstream.pipe(client);
    });
    upstream.on('error', () => {
      upstream.destroy();
      if (connected) client.destroy();
      else route(client, tries + 1);
    });
    upstream.on('close', () => {
      sockets.delete(upstream);
      // A clean end was passed on by pipe (the response is flushed first); anything else drops.
      if (connected && !upstream.readableEnded) client.destroy();
    });
    client.on('close', () => upstream.destroy());
  };

  const server: Server = createServer({ pauseOnConnect: true, noDelay: true }, (client) => {
    accepted += 1;
    sockets.add(client);
    client.on('error', () => client.destroy());
    client.on('close', () => sockets.delete(client));
    route(client, 0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    add(id, backendPort) {
      backends.set(id, { port: backendPort, lastRequest: 0 });
    },
    remove(id) {
      backends.delete(id);
    },
    lastRequested() {
      let best: number | undefined;
      let at = 0;
      for (const [id, { lastRequest }] of backends) {
        if (lastRequest > at) {
          best = id;
          at = lastRequest;
        }
      }
      return best;
    },
    get accepted() {
      return accepted;
    },
    routed,
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
