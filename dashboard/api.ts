/**
 * The one way the page talks to the server: same-origin `/admin/api/...` with the session
 * cookie, JSON in and out. Errors become an `ApiError` carrying the server's `message`;
 * any 401 also tells the app to show the sign-in screen.
 */

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  /** The answer's JSON body (a `412`'s `current`) and headers (its `ETag`), when there was an answer. */
  readonly body: unknown;
  readonly headers: Headers | undefined;

  constructor(status: number, code: string, message: string, body?: unknown, headers?: Headers) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.body = body;
    this.headers = headers;
  }
}

let onUnauthorized: () => void = () => {};

/** Registers what a 401 from any call does (the app shows the sign-in screen). */
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

export interface CallOptions {
  method?: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  body?: unknown;
  /** False for the session calls, whose 401 is their own answer rather than a lost session. */
  signOutOn401?: boolean;
  /** Sent as well (`If-Match`). */
  headers?: Record<string, string>;
}

export const api = async <T>(path: string, options: CallOptions = {}): Promise<T> =>
  (await call<T>(path, options)).data;

/** As `api`, with the answer's headers (its `ETag`). */
export async function call<T>(
  path: string,
  options: CallOptions = {},
): Promise<{ data: T; headers: Headers }> {
  const headers: Record<string, string> = { ...options.headers };
  const init: RequestInit = { method: options.method ?? 'GET', credentials: 'same-origin', headers };
  if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(options.body);
  }
  let res: Response;
  try {
    res = await fetch(path, init);
  } catch {
    throw new ApiError(0, 'NETWORK_ERROR', 'Could not reach the server. Is flagwire-server running?');
  }
  const text = await res.text().catch(() => '');
  let data: unknown;
  try {
    data = text === '' ? undefined : JSON.parse(text);
  } catch {
    data = undefined;
  }
  if (!res.ok) {
    const body = (typeof data === 'object' && data !== null ? data : {}) as {
      error?: unknown;
      message?: unknown;
    };
    const error = new ApiError(
      res.status,
      typeof body.error === 'string' ? body.error : `HTTP_${res.status}`,
      typeof body.message === 'string'
        ? body.message
        : `The server answered ${res.status} ${res.statusText}`.trim(),
      data,
      res.headers,
    );
    if (res.status === 401 && options.signOutOn401 !== false) onUnauthorized();
    throw error;
  }
  return { data: data as T, headers: res.headers };
}

/**
 * Versions (`docs/protocol.md` §3.3): the version an `ETag` names (`"12"`), and the `If-Match`
 * of a write made against one. Every write of a flag or a segment names the version it was made
 * from; a version the page never got (none: the server always answers one) is `0`, which the
 * server refuses `412` with the current one rather than letting the write go blind.
 */
export const versionOf = (headers: Headers | undefined): number =>
  Number(/^"(\d+)"$/.exec(headers?.get('etag') ?? '')?.[1] ?? 0);

export const ifMatch = (version: number | undefined) => ({ 'If-Match': `"${version ?? 0}"` });

/** What a quick change or a deletion refused `412` says (the screen then shows the resource as it is). */
export const CHANGED_ELSEWHERE =
  'it was changed elsewhere meanwhile; it is shown as it is now. Look at it again first.';

/** A `412 PRECONDITION_FAILED`: the resource as it is now, and its version. */
export function preconditionFailed<T>(error: unknown): { current: T; version: number } | undefined {
  if (!(error instanceof ApiError) || error.status !== 412) return undefined;
  const current = (error.body as { current?: T } | undefined)?.current;
  return current === undefined ? undefined : { current, version: versionOf(error.headers) };
}

/** The text to show for a failure of any kind. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const enc = encodeURIComponent;

/** `/admin/api/environments/P/E` plus the given path segments, each encoded. */
export function envApi(project: string, env: string, ...segments: string[]): string {
  return ['/admin/api/environments', enc(project), enc(env), ...segments.map(enc)].join('/');
}
