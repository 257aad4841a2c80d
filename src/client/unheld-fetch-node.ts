/**
 * Node's `fetch` for a client created with `holdProcess: false` (bound by the Node build in
 * place of `unheld-fetch.ts`): a GET over `node:http`/`node:https` on a connection of its own
 * whose socket is unref'd, so that neither the snapshot request nor the open event stream keeps
 * the process alive. It covers what the client sends (GET, and the usage reports' POST with a
 * text body; headers, an abort signal); it asks for no compression and follows no redirect (a 3xx
 * reaches the client as an error). An awaited `flush()` or `close()` holds the process itself
 * (`create-client.ts`), so its reports are sent over these connections too.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';

/** Statuses whose response has no body (`new Response` refuses one). */
const NULL_BODY = [101, 103, 204, 205, 304];

export const unheldFetch: typeof fetch = (input, init = {}) =>
  new Promise((resolve, reject) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers = Object.fromEntries(new Headers(init.headers));
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const request = send(
      url,
      { method: init.method ?? 'GET', headers, agent: false, signal: init.signal ?? undefined },
      (response) => {
        const status = response.statusCode ?? 0;
        const body = NULL_BODY.includes(status) ? null : (Readable.toWeb(response) as ReadableStream);
        if (!body) response.resume();
        const answer = new Headers();
        const raw = response.rawHeaders;
        for (let i = 0; i < raw.length; i += 2) answer.append(raw[i]!, raw[i + 1]!);
        resolve(new Response(body, { status, statusText: response.statusMessage ?? '', headers: answer }));
      },
    );
    request.on('socket', (socket) => socket.unref());
    request.on('error', reject);
    // A text body (a usage report's JSON): `end` sends it with its Content-Length.
    request.end(typeof init.body === 'string' ? init.body : undefined);
  });
