/**
 * A webhook receiver on plain `node:http`: verify the raw body, dedupe on the event id,
 * acknowledge fast, then do the work.
 *
 * createWebhookReceiver(process.env.FLAGWIRE_WEBHOOK_SECRET!, (event) => console.log(event.type)).listen(3000);
 */
import { createServer, type Server } from 'node:http';
import { constructEvent, isFlagwireError, type WebhookEvent } from 'flagwire';

export function createWebhookReceiver(
  secrets: string | string[],
  onEvent: (event: WebhookEvent) => void,
): Server {
  const seen = new Set<string>(); // use a store with expiry in production
  return createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let event: WebhookEvent;
      try {
        // The raw bytes, exactly as received: never a re-serialized parsed object.
        event = constructEvent(Buffer.concat(chunks), req.headers, secrets);
      } catch (error) {
        res.writeHead(isFlagwireError(error) ? 400 : 500, { 'content-type': 'text/plain' });
        res.end(isFlagwireError(error) ? error.code : 'error');
        return;
      }
      res.writeHead(204).end(); // acknowledge first: the sender waits at most 15 s
      if (seen.has(event.id)) return; // a retry or a redelivery of an event already handled
      seen.add(event.id);
      onEvent(event);
    });
  });
}
