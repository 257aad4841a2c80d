/**
 * Errors for HTTP answers, with a stable code: the SDK client's (snapshot and stream) and the
 * management client's.
 */
import { type FlagwireError, parseRetryAfter, requestError } from '../errors.js';

/**
 * The error for a non-2xx answer whose body (parsed JSON, if it was) is `body`: 401/403 keep
 * their meaning (`UNAUTHORIZED`, `FORBIDDEN`), anything else is the service's code (when the
 * body has one) or else `HTTP_ERROR`; the service's message, when there is one, ends the message.
 */
export function answerError(response: Response, method: string, url: string, body: unknown): FlagwireError {
  const { status } = response;
  const { error, message } = Object(body) as { error?: unknown; message?: unknown };
  return requestError(
    status === 401
      ? 'UNAUTHORIZED'
      : status === 403
        ? 'FORBIDDEN'
        : typeof error === 'string'
          ? error
          : 'HTTP_ERROR',
    method,
    url,
    ` answered ${status}${typeof message === 'string' ? `: ${message}` : ''}`,
    { status, retryAfterMs: parseRetryAfter(response.headers.get('retry-after')) },
  );
}

/** The error for a non-2xx answer, its body read. */
export async function errorForResponse(
  response: Response,
  method: string,
  url: string,
): Promise<FlagwireError> {
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    // not a JSON error body
  }
  return answerError(response, method, url, body);
}
