/**
 * Messages of `WebhookVerificationError`: each says what failed and how to fix it, from what
 * can be seen without revealing anything. None contains a secret, the expected signature or
 * the received header.
 */

const PREFIX = 'sha256=';
const HEX_DIGITS = 64;

const RAW_BODY_HINT =
  "pass the raw body: express.raw({ type: 'application/json' }) and req.body (a Buffer) in Express, " +
  'await req.text() in fetch-style handlers (Next.js route handlers, Workers, Hono, Deno, Bun), ' +
  'or the raw bytes your framework keeps (Fastify: a content type parser with parseAs: "buffer")';

export const EMPTY_SECRET =
  'constructEvent: the webhook secret is empty or missing. Pass the "whsec_..." secret returned once ' +
  'by POST /webhooks (e.g. from an environment variable, and check that it is set here).';

export const MISSING_HEADER =
  'constructEvent: no X-Flagwire-Signature header. Pass the request headers (req.headers, ' +
  'request.headers) or the header value, and check that no proxy strips it.';

export const UNREADABLE_HEADER = 'constructEvent: reading the X-Flagwire-Signature header failed.';

export const INVALID_JSON = 'constructEvent: the signature is valid but the body is not UTF-8 JSON.';

/** The body is not a string, bytes or an `ArrayBuffer` (`value` is described, never shown). */
export function notRaw(value: unknown, unreadable: boolean): string {
  let what: string;
  if (unreadable) what = 'could not be read';
  else if (value === null) what = 'is null';
  else if (Array.isArray(value)) what = 'is an array';
  else if (typeof value === 'object') what = 'is an object (a body already parsed as JSON?)';
  else if (value === undefined) what = 'is undefined (no body read?)';
  else what = `is a ${typeof value}`;
  return `constructEvent: the body ${what}, not the raw body; ${RAW_BODY_HINT}.`;
}

/** Why a present header is not `sha256=` + 64 lowercase hex digits. */
export function malformedHeader(header: string): string {
  let problem = 'expected "sha256=" followed by 64 lowercase hex digits';
  if (!header.startsWith(PREFIX)) {
    problem = header.toLowerCase().startsWith(PREFIX)
      ? 'the prefix must be lowercase "sha256="'
      : 'it must start with "sha256="';
  } else if (header.length - PREFIX.length !== HEX_DIGITS) {
    problem = `expected 64 hex digits after "sha256=", got ${header.length - PREFIX.length} characters`;
  } else if (/[A-F]/.test(header)) {
    problem = 'the hex digits must be lowercase';
  }
  return `constructEvent: malformed X-Flagwire-Signature header: ${problem}.`;
}

/** No secret produced the signature: hints from the secrets' shape and the body's type. */
export function signatureMismatch(secrets: readonly string[], rawBody: unknown): string {
  const under = secrets.length > 1 ? ` under any of the ${secrets.length} secrets` : '';
  let message = `constructEvent: the X-Flagwire-Signature header does not match the body${under}.`;
  if (secrets.some((secret) => secret.trim() !== secret)) {
    message +=
      ' The secret has leading or trailing whitespace (a newline from a .env file or a copy-paste?);' +
      ' Flagwire secrets contain none: remove it.';
  }
  if (secrets.some((secret) => !secret.trim().startsWith('whsec_'))) {
    message +=
      ' Flagwire secrets start with "whsec_": pass the whole secret, prefix included (it is part of the key).';
  }
  message +=
    typeof rawBody === 'string'
      ? ' Check that the string is the body exactly as received, not JSON re-serialized after parsing,'
      : ' Check that the bytes are the body exactly as received,';
  return `${message} and that the secret belongs to the webhook that sent it.`;
}

export const invalidEvent = (problem: string): string =>
  `constructEvent: the signature is valid but the body is not a webhook event: ${problem}.`;

const seconds = (ms: number): string => `${Number((ms / 1000).toFixed(3))} s`;

/** `delivery.sentAt` is `ageMs` before now (negative: after), beyond `toleranceSeconds`. */
export function outsideTolerance(ageMs: number, toleranceSeconds: number): string {
  const beyond = `beyond the tolerance of ${toleranceSeconds} s`;
  return ageMs > 0
    ? `constructEvent: delivery.sentAt is ${seconds(ageMs)} before now, ${beyond}: a replay or a late ` +
        'delivery. For an event processed later, pass the time it was received as options.now; ' +
        'otherwise check the clock.'
    : `constructEvent: delivery.sentAt is ${seconds(-ageMs)} after now, ${beyond}: check this ` +
        "machine's clock (NTP).";
}
