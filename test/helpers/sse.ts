/**
 * A raw SSE reader for tests: opens a stream with `node:http`, parses frames as they
 * arrive (`docs/protocol.md` §5), and hands them out in order with `next()`.
 */
import { type IncomingMessage, request } from 'node:http';

export interface SseEvent {
  id: string | undefined;
  event: string;
  data: string;
  retry: number | undefined;
}

export interface SseReader {
  response: IncomingMessage;
  /** The next event (pings included unless `skipPings`). */
  next(options?: { skipPings?: boolean }): Promise<SseEvent>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

export function openStream(url: string, headers: Record<string, string> = {}): Promise<SseReader> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: 'text/event-stream', ...headers } }, (response) => {
      const queue: SseEvent[] = [];
      const waiters: Array<(event: SseEvent) => void> = [];
      let buffer = '';
      let current: SseEvent = { id: undefined, event: 'message', data: '', retry: undefined };
      let hasField = false;
      let endResolve!: () => void;
      const ended = new Promise<void>((r) => {
        endResolve = r;
      });
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffer += chunk;
        let newline = buffer.indexOf('\n');
        while (newline >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          if (line === '') {
            if (hasField) {
              const waiter = waiters.shift();
              if (waiter) waiter(current);
              else queue.push(current);
            }
            current = { id: undefined, event: 'message', data: '', retry: undefined };
            hasField = false;
          } else if (!line.startsWith(':')) {
            const colon = line.indexOf(':');
            const field = colon < 0 ? line : line.slice(0, colon);
            const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (field === 'data') current.data = current.data ? `${current.data}\n${value}` : value;
            else if (field === 'event') current.event = value;
            else if (field === 'id') current.id = value;
            else if (field === 'retry') current.retry = Number(value);
            hasField = field === 'data' || field === 'event' || field === 'id' || hasField;
          }
          newline = buffer.indexOf('\n');
        }
      });
      response.on('end', endResolve);
      response.on('close', endResolve);
      response.on('error', () => {});
      const take = (): Promise<SseEvent> => {
        const queued = queue.shift();
        if (queued) return Promise.resolve(queued);
        return new Promise((r) => waiters.push(r));
      };
      resolve({
        response,
        ended,
        async next(options = {}) {
          for (;;) {
            const event = await take();
            if (!(options.skipPings && event.event === 'ping')) return event;
          }
        },
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}
