/**
 * One `GET /sdk/flags` (`docs/protocol.md` §5.2): the snapshot load of the client's loop (the
 * first load, a poll, a reload), under a deadline that covers the whole exchange.
 */
import { startExchange } from '../core/deadline-exchange.js';
import { answerError } from '../core/http.js';
import type { SdkSnapshot } from '../core/types.js';
import { type FlagwireError, requestError } from '../errors.js';
import type { ResolvedClientOptions } from './options.js';
import { parseSnapshot } from './parse.js';

/**
 * Requests the snapshot, revalidating with `etag` (`If-None-Match`) when given, and hands the
 * whole answer to `answered`: the snapshot and its `ETag`, or nothing when `etag` is still
 * current (304). Resolves with the error when it failed (`TIMEOUT` past `timeoutMs`, `ABORTED`
 * once `signal` aborts, the answer's error on a non-2xx, `INVALID_RESPONSE`...). `hold`: the
 * deadline's timer keeps the process alive.
 */
export async function requestSnapshot(
  o: ResolvedClientOptions,
  signal: AbortSignal,
  hold: boolean,
  etag: string | null | undefined,
  answered: (snapshot?: SdkSnapshot, etag?: string | null) => void,
): Promise<FlagwireError | undefined> {
  const url = `${o.base}/sdk/flags`;
  const exchange = startExchange(o.timeoutMs, signal, hold);
  const headers: Record<string, string> = {
    authorization: o.authorization,
    accept: 'application/json',
    'x-flagwire-capabilities': 'targeting',
  };
  if (etag) headers['if-none-match'] = etag;
  try {
    const response = await exchange.race(
      o.fetch(url, { headers, signal: exchange.signal, cache: 'no-store' }),
    );
    const { status } = response;
    let snapshot: SdkSnapshot | undefined;
    // A 304 has no body (the Fetch standard's null-body status): nothing to read or release.
    if (status !== 304) {
      let body: unknown;
      let cause: unknown;
      try {
        body = await exchange.race(response.json());
      } catch (error) {
        // Not JSON, or the deadline passed while reading (then `failure` says TIMEOUT).
        cause = error;
        void response.body?.cancel().catch(() => {});
      }
      if (!response.ok) throw answerError(response, 'GET', url, body);
      snapshot = parseSnapshot(body);
      if (!snapshot) {
        throw requestError('INVALID_RESPONSE', 'GET', url, ' answered no valid snapshot', {
          status,
          cause,
        });
      }
    }
    answered(snapshot, response.headers.get('etag'));
  } catch (error) {
    return exchange.failure(error, 'GET', url);
  } finally {
    exchange.end();
  }
}
