/**
 * One management API call: JSON in and out, a timeout and the caller's signal, retries only
 * where they are safe (GET and DELETE on network errors, 429 and 503, honouring
 * `Retry-After`), and every non-2xx as a `FlagwireError` with `status`, the service's `code`
 * and `message`, the method and the URL (never the key). A call holds the process (Node, Deno,
 * Bun) until it settles, through its retry waits too: its caller awaits it, and a script whose
 * only work is that call must reach its `catch`, not end with an unsettled `await`.
 */

import { startExchange } from '../core/deadline-exchange.js';
import { answerError } from '../core/http.js';
import { later } from '../core/timers.js';
import type { ChangeConflict } from '../core/wire/changes.js';
import { FlagwireError, parseRetryAfter } from '../errors.js';

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

/** The server's `Retry-After` (at most 30 s), or else 250 ms doubling per attempt (at most 5 s). */
function retryDelayMs(header: string | null, attempt: number): number {
  const told = parseRetryAfter(header);
  return told === undefined ? Math.min(250 * 2 ** attempt, 5000) : Math.min(told, 30_000);
}

/** The wait before a retry, on a timer that holds the process: the caller awaits the call. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = later(ms, resolve, true);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

/** The error of a write whose `ifVersion` the resource had moved past. */
export interface PreconditionFailedError extends FlagwireError {
  readonly code: 'PRECONDITION_FAILED';
  /** The resource as the server holds it now. */
  readonly current: unknown;
}

/**
 * A change request refused because flags or segments it changes moved since its changes were
 * written (`409 CONFLICT`, `docs/protocol.md` §10.7): nothing was written. Rebase it (`rebase`)
 * once what moved is read, and have it approved again.
 */
export interface ChangeConflictError extends FlagwireError {
  readonly code: 'CONFLICT';
  /** Each target that moved: the version its change expected and the one it is at now. */
  readonly conflicts: ChangeConflict[];
}

/**
 * The error for a non-2xx answer, with what its body carries besides `error` and `message`: a
 * `412`'s `current`, a stale change's `conflicts` (`409`); and `403 APPROVAL_REQUIRED` keeps its
 * code (any other `403` is `FORBIDDEN`).
 */
export function failureOf(response: Response, method: string, url: string, body: unknown): FlagwireError {
  const { error: code, current, conflicts } = Object(body) as Record<string, unknown>;
  return Object.assign(
    answerError(response, method, url, body),
    response.status === 412
      ? { current }
      : Array.isArray(conflicts)
        ? { conflicts }
        : code === 'APPROVAL_REQUIRED' && { code },
  );
}

/** What a call sends and sees besides its body: extra request headers, the answer's headers. */
export interface CallExtras {
  headers?: Record<string, string> | undefined;
  onHeaders?: (headers: Headers) => void;
}

export async function call<T>(
  settings: RequestSettings,
  method: string,
  path: string,
  body: unknown,
  options: CallOptions = {},
  extras: CallExtras = {},
): Promise<T> {
  const url = `${settings.base}${path}`;
  const retries = IDEMPOTENT.has(method) ? settings.retries : 0;
  for (let attempt = 0; ; attempt++) {
    if (options.signal?.aborted)
      throw new FlagwireError('ABORTED', `${method} ${url} was aborted`, { method, url });
    const exchange = startExchange(settings.timeoutMs, options.signal, true);
    try {
      const headers: Record<string, string> = {
        authorization: settings.authorization,
        accept: 'application/json',
        ...extras.headers,
      };
      if (body !== undefined) headers['content-type'] = 'application/json';
      let response: Response;
      try {
        response = await exchange.race(
          settings.fetch(url, {
            method,
            headers,
            signal: exchange.signal,
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          }),
        );
      } catch (cause) {
        const error = exchange.failure(cause, method, url);
        if (error.code !== 'ABORTED' && attempt < retries) {
          await pause(retryDelayMs(null, attempt), options.signal);
          continue;
        }
        throw error;
      }
      if ((response.status === 429 || response.status === 503) && attempt < retries) {
        await response.body?.cancel();
        await pause(retryDelayMs(response.headers.get('retry-after'), attempt), options.signal);
        continue;
      }
      if (!response.ok) {
        const answer = await exchange.race(response.json().catch(() => undefined));
        throw failureOf(response, method, url, answer);
      }
      extras.onHeaders?.(response.headers);
      if (response.status === 204) return undefined as T;
      let json: unknown;
      try {
        json = await exchange.race(response.json());
      } catch (cause) {
        if (exchange.signal.aborted) throw exchange.failure(cause, method, url);
        throw new FlagwireError('INVALID_RESPONSE', `${method} ${url} answered a body that is not JSON`, {
          status: response.status,
          method,
          url,
          cause,
        });
      }
      return json as T;
    } finally {
      exchange.end();
    }
  }
}
