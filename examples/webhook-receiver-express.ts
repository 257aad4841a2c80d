/**
 * A webhook receiver in Express. The one rule: the webhook route reads the body with
 * `express.raw()`, so the signature is checked over the bytes that were signed (a body
 * parsed by `express.json()` and serialized again would not match).
 */
import express, { type Express } from 'express';
import { constructEvent, isFlagwireError, type WebhookEvent } from 'flagwire';

export function createWebhookApp(
  secrets: string | string[],
  onEvent: (event: WebhookEvent) => void,
): Express {
  const app = express();
  app.post('/webhooks/flagwire', express.raw({ type: 'application/json' }), (req, res) => {
    try {
      const event = constructEvent(req.body as Buffer, req.headers, secrets);
      res.sendStatus(204);
      onEvent(event);
    } catch (error) {
      res.status(400).send(isFlagwireError(error) ? error.code : 'invalid');
    }
  });
  // Other routes may use express.json() as usual.
  app.use(express.json());
  return app;
}
