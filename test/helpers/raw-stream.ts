/**
 * Raw event streams for tests of the server's SSE connections: a `node:http` server of one
 * handler, and a client that keeps every byte it receives (comments and `retry:` lines
 * included, which `./sse.ts` drops), or, `paused`, reads the head and then nothing more.
 */
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const servers: Server[] = [];

/** Closes every server `serve` started (an `afterEach`). */
export function closeServed(): void {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
}

/** A server whose every request goes to `handle`; answers its base URL. */
export async function serve(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handle);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export interface Client {
  res: IncomingMessage;
  /** Everything received so far. */
  text(): string;
  /** Bytes received so far. */
  bytes(): number;
  /** Resolves once `holds(text)` is true, checked at every chunk. */
  until(holds: (text: string, bytes: number) => boolean): Promise<void>;
  /** Resolves when the response ends or its connection closes. */
  ended: Promise<void>;
  destroy(): void;
}

/** Opens `url`; a `paused` client reads the head and then nothing more. */
export function connect(
  url: string,
  { paused = false, method = 'GET', headers = {} as Record<string, string> } = {},
): Promise<Client> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let text = '';
      let bytes = 0;
      const waiters = new Set<() => void>();
      const ended = new Promise<void>((done) => {
        res.once('end', done);
        res.once('close', done);
      });
      res.on('error', () => {});
      if (paused) res.pause();
      else
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          text += chunk.toString('utf8');
          for (const check of [...waiters]) check();
        });
      resolve({
        res,
        text: () => text,
        bytes: () => bytes,
        until: (holds) =>
          new Promise((done) => {
            const check = () => {
              if (!holds(text, bytes)) return;
              waiters.delete(check);
              done();
            };
            waiters.add(check);
            check();
          }),
        ended,
        destroy: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}
