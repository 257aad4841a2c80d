/**
 * Signed webhook requests for users' tests of their receivers: the same envelope and
 * signature the server sends (`docs/protocol.md` §8), with any field overridden.
 */
import { hmacSha256Hex } from '../webhooks/hmac-web.js';
import type { WebhookEvent } from '../webhooks/types.js';
import { utf8 } from '../webhooks/utf8.js';

/** The `X-Flagwire-Signature` value of `body` under `secret`: `sha256=<lowercase hex>`. */
export function signWebhookBody(body: string | Uint8Array, secret: string): string {
  const bytes = typeof body === 'string' ? utf8(body) : body;
  return `sha256=${hmacSha256Hex(utf8(secret), bytes)}`;
}

let counter = 0;
const id = (prefix: string) => `${prefix}_test${(++counter).toString(36).padStart(8, '0')}`;

/**
 * A complete, valid webhook event: by default a `flag.enabled` of flag `example-flag`, sent now.
 * Pass fields to override (shallowly; `delivery` and `data` are merged one level deep).
 */
export function buildWebhookEvent(
  overrides: Partial<Omit<WebhookEvent, 'delivery' | 'data'>> & {
    delivery?: Partial<WebhookEvent['delivery']>;
    data?: Partial<WebhookEvent['data']>;
  } = {},
  now: number = Date.now(),
): WebhookEvent {
  const { delivery, data, ...rest } = overrides;
  return {
    id: id('evt'),
    type: 'flag.enabled',
    createdAt: new Date(now).toISOString(),
    webhookId: 'wh_test',
    project: 'default',
    environment: 'development',
    ...rest,
    delivery: { id: id('dlv'), attempt: 1, sentAt: Math.floor(now / 1000), ...delivery },
    data: {
      action: 'updated',
      flag: { key: 'example-flag', type: 'boolean', enabled: true, description: null },
      previous: { enabled: false },
      ...data,
    },
  } as WebhookEvent;
}

export interface SignedWebhookRequestOptions {
  /** The webhook secret to sign with. */
  secret: string;
  /** The event, or fields to override in `buildWebhookEvent()`'s default. */
  event?: Parameters<typeof buildWebhookEvent>[0];
  /** @default 'http://localhost/webhooks/flagwire' */
  url?: string;
  /** Epoch ms used for `delivery.sentAt` and `createdAt`. @default Date.now() */
  now?: number;
}

/** A `Request` exactly as the service would send it: JSON body, signature and convenience headers. */
export function createSignedWebhookRequest(options: SignedWebhookRequestOptions): Request {
  const event = buildWebhookEvent(options.event, options.now);
  const body = JSON.stringify(event);
  return new Request(options.url ?? 'http://localhost/webhooks/flagwire', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-flagwire-signature': signWebhookBody(body, options.secret),
      'x-flagwire-event': event.type,
      'x-flagwire-delivery': event.delivery.id,
    },
    body,
  });
}
