/**
 * `GET /sdk/flags` (`docs/protocol.md` §5.2) with a timeout, `ETag` revalidation, and every
 * failure mapped onto a `FlagwireError` with a stable code.
 */
import type { SdkSnapshot } from '../core/types.js';
import { FlagwireError, parseRetryAfter } from '../errors.js';
import { startExchange } from './exchange.js';
import type { ResolvedClientOptions } from './options.js';
import { parseSnapshot } from './parse.js';

export type SnapshotResult =
  | { kind: 'ok'; snapshot: SdkSnapshot; etag: string | undefined }
  | { kind: 'not-modified' };

/** The error for a non-2xx answer: 401/403 keep their meaning, anything else is `HTTP_ERROR`. */
export async function errorForResponse(
  response: Response,
  method: string,
  url: string,
): Promise<FlagwireError> {
  let serviceCode: string | undefined;
  let serviceMessage = '';
  try {
    const body = (await response.json()) as { error?: unknown; message?: unknown };
    if (typeof body.error === 'string') serviceCode = body.error;
    if (typeof body.message === 'string') serviceMessage = `: ${body.message}`;
  } catch {
    // not a JSON error body
  }
  const status = response.status;
  const code = status === 401 ? 'UNAUTHORIZED' : status === 403 ? 'FORBIDDEN' : (serviceCode ?? 'HTTP_ERROR');
  return new FlagwireError(code, `${method} ${url} answered ${status}${serviceMessage}`, {
    status,
    method,
    url,
    retryAfterMs: parseRetryAfter(response.headers.get('retry-after')),
  });
}

/** Fetches the snapshot; rejects with a `FlagwireError`. */
export async function fetchSnapshot(
  options: ResolvedClientOptions,
  etag: string | undefined,
  signal: AbortSignal,
): Promise<SnapshotResult> {
  const url = options.snapshotUrl;
  const exchange = startExchange(options.timeoutMs, signal);
  const headers: Record<string, string> = {
    authorization: options.authorization,
    accept: 'application/json',
  };
  if (etag) headers['if-none-match'] = etag;
  try {
    const response = await exchange.race(
      options.fetch(url, { headers, signal: exchange.signal, cache: 'no-store' }),
    );
    if (response.status === 304) {
      await response.body?.cancel();
      return { kind: 'not-modified' };
    }
    if (!response.ok) throw await exchange.race(errorForResponse(response, 'GET', url));
    let body: unknown;
    try {
      body = await exchange.race(response.json());
    } catch (cause) {
      if (exchange.signal.aborted) {
        void response.body?.cancel().catch(() => {});
        throw cause;
      }
      throw new FlagwireError('INVALID_RESPONSE', `GET ${url} answered a body that is not JSON`, {
        status: response.status,
        method: 'GET',
        url,
        cause,
      });
    }
    const snapshot = parseSnapshot(body);
    if (!snapshot) {
      throw new FlagwireError('INVALID_RESPONSE', `GET ${url} answered a body that is not a flag snapshot`, {
        status: response.status,
        method: 'GET',
        url,
      });
    }
    return { kind: 'ok', snapshot, etag: response.headers.get('etag') ?? undefined };
  } catch (error) {
    throw exchange.failure(error, 'GET', url);
  } finally {
    exchange.end();
  }
}
