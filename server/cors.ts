/**
 * CORS headers on every answer, the SDK's event stream included (`docs/protocol.md` §4): keys
 * travel in a header, never in cookies, so any origin may call the API.
 */
export const CORS_HEADERS: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'ETag, Allow, Retry-After',
};
