/**
 * A webhook handler for fetch-style runtimes: a Next.js route handler, Hono, Cloudflare
 * Workers, Deno, Bun. `Request` in, `Response` out; the body is read as bytes.
 *
 * Next.js (app/api/flagwire/route.ts):
 *   export const POST = (request: Request) => handleWebhook(request, process.env.FLAGWIRE_WEBHOOK_SECRET!, console.log);
 */
import { constructEvent, isFlagwireError, type WebhookEvent } from 'flagwire';

export async function handleWebhook(
  request: Request,
  secrets: string | string[],
  onEvent: (event: WebhookEvent) => void | Promise<void>,
): Promise<Response> {
  const body = new Uint8Array(await request.arrayBuffer());
  let event: WebhookEvent;
  try {
    event = constructEvent(body, request.headers, secrets);
  } catch (error) {
    return new Response(isFlagwireError(error) ? error.code : 'invalid', { status: 400 });
  }
  await onEvent(event);
  return new Response(null, { status: 204 });
}
