/**
 * How a webhook attempt reaches its receiver (`docs/protocol.md` §8, "Sending"): one `POST` over
 * Node's own `node:http` / `node:https`, so the server needs no HTTP package (flagwire installs
 * no dependency). Keep-alive connections, at most `connections` to one origin, idle ones closed
 * after 4 s (before the common 5 s server keep-alive); redirects are never followed (Node does
 * not); under `publicOnly` every connection resolves its name through `publicLookup`.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { publicLookup } from './targets.js';

export interface SenderOptions {
  /** Connections open at once to one origin. */
  connections: number;
  /** Connect only to public addresses (`targets.ts`). */
  publicOnly: boolean;
}

/** A receiver's answer: its status and the first KiB of its body. */
export interface Answer {
  statusCode: number;
  response: string;
}

export class Sender {
  readonly #http: HttpAgent;
  readonly #https: HttpsAgent;
  readonly #publicOnly: boolean;

  constructor(options: SenderOptions) {
    const agent = { keepAlive: true, maxSockets: options.connections, timeout: 4000 };
    this.#http = new HttpAgent(agent);
    this.#https = new HttpsAgent(agent);
    this.#publicOnly = options.publicOnly;
  }

  /**
   * POSTs `body` to `url`; resolves with the answer once its body was read (`firstKiB`), rejects
   * when no answer came (refused, reset, aborted by `signal`).
   */
  async post(
    url: string,
    headers: Record<string, string>,
    body: string,
    signal: AbortSignal,
  ): Promise<Answer> {
    const target = new URL(url);
    const secure = target.protocol === 'https:';
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = (secure ? httpsRequest : httpRequest)(target, {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        agent: secure ? this.#https : this.#http,
        signal,
        ...(this.#publicOnly ? { lookup: publicLookup } : {}),
      });
      req.once('response', resolve);
      req.on('error', reject);
      req.end(body);
    });
    return { statusCode: res.statusCode ?? 0, response: await firstKiB(res) };
  }

  /** Closes every connection. */
  close(): void {
    this.#http.destroy();
    this.#https.destroy();
  }
}

/**
 * The first KiB of an answer's body as text (kept in the attempt's log), reading at most 64 KiB
 * of it so the connection can be reused; a body cut short keeps what came.
 */
async function firstKiB(body: AsyncIterable<Uint8Array>): Promise<string> {
  const kept: Uint8Array[] = [];
  let size = 0;
  let read = 0;
  try {
    for await (const chunk of body) {
      if (size < 1024) {
        const part = chunk.subarray(0, 1024 - size);
        kept.push(part);
        size += part.length;
      }
      read += chunk.length;
      if (read >= 64 * 1024) break;
    }
  } catch {}
  return Buffer.concat(kept).toString('utf8');
}
