/** Calling the dashboard's admin API from tests (`docs/protocol.md` §10), by token or by session. */
import type { FlagwireServer } from '../../server/index.js';

export interface AdminCaller {
  /** A call with `Authorization: Bearer <admin token>`. */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  /** A call with the session cookie and the server's own `Origin` (its `publicUrl`, if set), as a page. */
  asPage(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  /** The session cookie (`name=value`). */
  cookie: string;
}

export async function adminCaller(server: FlagwireServer): Promise<AdminCaller> {
  const base = `${server.url}/admin/api`;
  // The origin the page is on: the public URL when the server has one (docs/protocol.md §10.2).
  const origin = new URL(server.dashboardUrl ?? server.url).origin;
  const send = (method: string, path: string, body: unknown, headers: Record<string, string>) => {
    const init: RequestInit = { method, headers: { ...headers } };
    if (body !== undefined) {
      (init.headers as Record<string, string>)['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    return fetch(`${base}${path}`, init);
  };
  const signIn = await send('POST', '/session', { token: server.adminToken }, { origin });
  if (signIn.status !== 200) throw new Error(`sign-in answered ${signIn.status}`);
  const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
  return {
    cookie,
    call: (method, path, body, headers = {}) =>
      send(method, path, body, { authorization: `Bearer ${server.adminToken}`, ...headers }),
    asPage: (method, path, body, headers = {}) => send(method, path, body, { cookie, origin, ...headers }),
  };
}
