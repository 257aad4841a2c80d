/**
 * The one way the page talks to the server: same-origin `/admin/api/...` with the session
 * cookie, JSON in and out. Errors become an `ApiError` carrying the server's `message`;
 * any 401 also tells the app to show the sign-in screen.
 */

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
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
}

export async function api<T>(path: string, options: CallOptions = {}): Promise<T> {
  const init: RequestInit = { method: options.method ?? 'GET', credentials: 'same-origin' };
  if (options.body !== undefined) {
    init.headers = { 'Content-Type': 'application/json' };
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
    );
    if (res.status === 401 && options.signOutOn401 !== false) onUnauthorized();
    throw error;
  }
  return data as T;
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
