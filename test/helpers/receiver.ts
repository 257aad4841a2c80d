/**
 * A webhook receiver on loopback for tests: records every request (raw body bytes and
 * headers) and answers with whatever the test decides, request by request.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';

/** The parts of a webhook envelope tests read; the rest stays unknown. */
export interface Envelope {
  id: string;
  type: string;
  webhookId: string;
  delivery: { id: string; attempt: number; sentAt: number };
  data: Record<string, unknown>;
  [field: string]: unknown;
}

export interface Received {
  headers: IncomingHttpHeaders;
  raw: Buffer;
  body: string;
  json: Envelope;
}

/** What to do with a request: a status to answer, or `'hang'` to never answer. */
export type Answer = number | 'hang';

export interface TestReceiver {
  url: string;
  received: Received[];
  /** The next request (already received or still to come), in order. */
  next(): Promise<Received>;
  close(): Promise<void>;
}

export async function startReceiver(
  answer: (request: Received, index: number) => Answer = () => 200,
): Promise<TestReceiver> {
  const received: Received[] = [];
  const waiters: Array<(r: Received) => void> = [];
  let taken = 0;
  const hanging: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const body = raw.toString('utf8');
      let json = {} as Envelope;
      try {
        json = JSON.parse(body) as Envelope;
      } catch {}
      const request: Received = { headers: req.headers, raw, body, json };
      const index = received.length;
      received.push(request);
      const decision = answer(request, index);
      if (decision === 'hang') hanging.push(res);
      else res.writeHead(decision, decision === 302 ? { location: 'http://127.0.0.1:1/' } : {}).end();
      waiters.shift()?.(request);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    next() {
      const index = taken++;
      const ready = received[index];
      if (ready) return Promise.resolve(ready);
      return new Promise((resolve) => {
        const check = (r: Received) => resolve(received[index] ?? r);
        waiters.push(check);
      });
    },
    close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
