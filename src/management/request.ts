/**
 * One management API call: JSON in and out, a timeout and the caller's signal, retries only
 * where they are safe (GET and DELETE on network errors, 429 and 503, honouring
 * `Retry-After`), and every non-2xx as a `FlagwireError` with `status`, the service's `code`
 * and `message`, the method and the URL (never the key).
 */

import { errorForResponse } from '../client/http.js';
import { cancel, later } from '../client/timers.js';
import { FlagwireError } from '../errors.js';

export interface RequestSettings {
  base: string;
  authorization: string;
  fetch: typeof fetch;
  timeoutMs: number;
  retries: number;
}

export interface CallOptions {
  /** Aborts the call (rejects with `ABORTED`). */
  signal?: AbortSignal;
}

const IDEMPOTENT = new Set(['GET', 'DELETE']);

function retryAfterMs(header: string | null, attempt: number): number {
  const seconds = header === null ? Number.NaN : Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, 30_000);
  const date = header === null ? Number.NaN : Date.parse(header);
  if (Number.isFinite(date)) return Math.min(Math.max(0, date - Date.now()), 30_000);
  return Math.min(250 * 2 ** attempt, 5000);
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = later(ms, resolve);
    signal?.addEventListener(
      'abort',
      () => {
        cancel(timer);
        resolve();
      },
      { once: true },
    );
  });
}

export async function call<T>(
  settings: RequestSettings,
  method: string,
  path: string,
  body: unknown,
  options: CallOptions = {},
): Promise<T> {
  const url = `${settings.base}${path}`;
  const retries = IDEMPOTENT.has(method) ? settings.retries : 0;
  for (let attempt = 0; ; attempt++) {
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    let timedOut = false;
    const timer = later(settings.timeoutMs, () => {
      timedOut = true;
      controller.abort();
    });
    try {
      if (options.signal?.aborted)
        throw new FlagwireError('ABORTED', `${method} ${url} was aborted`, { method, url });
      const headers: Record<string, string> = {
        authorization: settings.authorization,
        accept: 'application/json',
      };
      if (body !== undefined) headers['content-type'] = 'application/json';
      let response: Response;
      try {
        response = await settings.fetch(url, {
          method,
          headers,
          signal: controller.signal,
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      } catch (cause) {
        if (options.signal?.aborted)
          throw new FlagwireError('ABORTED', `${method} ${url} was aborted`, { method, url });
        const code = timedOut ? 'TIMEOUT' : 'NETWORK_ERROR';
        const error = new FlagwireError(
          code,
          timedOut
            ? `${method} ${url} took longer than ${settings.timeoutMs} ms`
            : `${method} ${url} failed: ${(cause as Error)?.message}`,
          { method, url, cause },
        );
        if (attempt < retries) {
          await pause(retryAfterMs(null, attempt), options.signal);
          continue;
        }
        throw error;
      }
      if ((response.status === 429 || response.status === 503) && attempt < retries) {
        await response.body?.cancel();
        await pause(retryAfterMs(response.headers.get('retry-after'), attempt), options.signal);
        continue;
      }
      if (!response.ok) throw await errorForResponse(response, method, url);
      if (response.status === 204) return undefined as T;
      try {
        return (await response.json()) as T;
      } catch (cause) {
        throw new FlagwireError('INVALID_RESPONSE', `${method} ${url} answered a body that is not JSON`, {
          status: response.status,
          method,
          url,
          cause,
        });
      }
    } finally {
      cancel(timer);
      options.signal?.removeEventListener('abort', onAbort);
    }
  }
}
