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
  readonly #inFlight = new WeakMap<Socket, number>();
  readonly #deferred = new WeakMap<Socket, () => void>();
  /** The first bytes each connection sent, to tell the method of a request the parser rejected. */
  readonly #firstBytes = new WeakMap<Socket, string>();
  readonly #served = new WeakSet<Socket>();

  /** The server's `connection` listener. */
  readonly onConnection = (socket: Socket): void => {
    socket.once('data', (chunk: Buffer) => this.#firstBytes.set(socket, chunk.toString('latin1', 0, 16)));
  };

  /** Whether the request the parser rejected is a `HEAD` (its answer then has no body). */
  #isHead(error: ParserError, socket: Socket): boolean {
    const raw = error.rawPacket;
    if (raw) {
      const text = raw.toString('latin1', 0, error.bytesParsed ?? raw.length);
      const end = text.lastIndexOf('\r\n\r\n');
      if (end >= 0) return HEAD.test(text.slice(end + 4));
    }
    // The rejected request began this packet, or (sent in several packets) the connection.
    const start = raw?.toString('latin1', 0, 16) ?? '';
    if (!this.#served.has(socket)) return HEAD.test(this.#firstBytes.get(socket) ?? start);
    return HEAD.test(start);
  }

  /** Call for every request: counts the responses under way on its socket. */
  track(socket: Socket, res: ServerResponse): void {
    this.#served.add(socket);
    this.#inFlight.set(socket, (this.#inFlight.get(socket) ?? 0) + 1);
    res.once('close', () => {
      const left = (this.#inFlight.get(socket) ?? 1) - 1;
      this.#inFlight.set(socket, left);
      if (left === 0) {
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
      if (socket.writable && !socket.destroyed) socket.end(answerFor(error, head));
      else socket.destroy();
    };
    // A client that closed its side mid-request (EOF) will send nothing more: answer now,
    // which also ends the request it left unfinished.
    const eof = error.code === 'HPE_INVALID_EOF_STATE';
    if (!eof && (this.#inFlight.get(socket) ?? 0) > 0) this.#deferred.set(socket, send);
    else send();
  };
}
