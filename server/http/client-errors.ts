/**
 * Answers for requests the HTTP parser rejects before a response exists, as JSON
 * (`docs/protocol.md` §4). Two subtleties:
 * - a malformed request pipelined behind a valid one is answered only after the valid
 *   one's response, never instead of it;
 * - a rejected `HEAD` request gets the status and headers without a body.
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { rawErrorResponse } from './respond.js';

type ParserError = NodeJS.ErrnoException & { rawPacket?: Buffer; bytesParsed?: number };

const HEAD = /^\s*HEAD /;

function answerFor(error: ParserError, head: boolean): string {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return rawErrorResponse(
        431,
        'Request Header Fields Too Large',
        'HEADERS_TOO_LARGE',
        'request headers are too large',
        head,
      );
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return rawErrorResponse(
        408,
        'Request Timeout',
        'REQUEST_TIMEOUT',
        'the request took too long to arrive',
        head,
      );
    default:
      return rawErrorResponse(400, 'Bad Request', 'BAD_REQUEST', 'malformed HTTP request', head);
  }
}

export class ClientErrorResponder {
  /** Per connection: the responses under way, oldest first (pipelined requests queue). */
  readonly #inFlight = new WeakMap<Socket, ServerResponse[]>();
  readonly #deferred = new WeakMap<Socket, () => void>();
  /** Per connection: bytes read when the last request head completed. */
  readonly #lastHeadAt = new WeakMap<Socket, number>();

  /**
   * Whether the request the parser rejected is a `HEAD` (its answer then has no body), or
   * `undefined` when its first bytes came in an earlier packet that is gone. (A `data`
   * listener to remember them would take every connection off Node's native parser path.)
   */
  #isHead(error: ParserError, socket: Socket): boolean | undefined {
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return false;
    const raw = error.rawPacket;
    if (!raw) return undefined;
    const text = raw.toString('latin1', 0, error.bytesParsed ?? raw.length);
    // A request pipelined in this packet behind a complete one starts after its head.
    const end = text.lastIndexOf('\r\n\r\n');
    if (end >= 0) return HEAD.test(text.slice(end + 4));
    // Otherwise the packet starts the request if it is the first after the last complete
    // head (or the connection's first); else the request began in a packet that is gone.
    const packetStart = socket.bytesRead - raw.length;
    const lastHead = this.#lastHeadAt.get(socket);
    if (packetStart <= (lastHead ?? 0)) return HEAD.test(raw.toString('latin1', 0, 16));
    // The request began in an earlier packet that is gone: most likely not a HEAD (a JSON
    // 431 for an oversized GET matters more than a body a HEAD client would ignore).
    return false;
  }

  /** Call for every request: keeps the responses under way on its socket. */
  track(socket: Socket, res: ServerResponse): void {
    const responses = this.#inFlight.get(socket) ?? [];
    if (responses.length === 0) this.#inFlight.set(socket, responses);
    responses.push(res);
    this.#lastHeadAt.set(socket, socket.bytesRead);
    res.once('close', () => {
      this.#lastHeadAt.set(socket, socket.bytesRead);
      const at = responses.indexOf(res);
      if (at >= 0) responses.splice(at, 1);
      if (responses.length === 0) {
        const send = this.#deferred.get(socket);
        this.#deferred.delete(socket);
        send?.();
      }
    });
  }

  /** The server's `clientError` listener. */
  readonly onClientError = (error: ParserError, socket: Socket): void => {
    const head = this.#isHead(error, socket);
    const send = () => {
      // A request whose method cannot be known gets no answer: a body could break a HEAD client.
      if (head !== undefined && socket.writable && !socket.destroyed) socket.end(answerFor(error, head));
      else socket.destroy();
    };
    // A client that closed its side mid-request (EOF) will send nothing more, and a request
    // past its deadline is the one still arriving (its handler waits for the body that never
    // came, so its answer would never be sent): answer now, which also ends that request.
    // `docs/protocol.md` §4.1.
    const responses = this.#inFlight.get(socket) ?? [];
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      // An answer already under way (a pipelined request's stream) cannot take a 408 in its
      // middle: the connection is closed instead.
      if (responses.some((res) => res.headersSent)) socket.destroy();
      else send();
      return;
    }
    if (error.code !== 'HPE_INVALID_EOF_STATE' && responses.length > 0) this.#deferred.set(socket, send);
    else send();
  };
}
