/**
 * A bound on open connections that slow clients cannot use to starve others
 * (`docs/protocol.md` §4.1). At `maxConnections`, a new connection first takes the place of the
 * oldest *slow* one: a connection that has not sent a whole request (its headers, or its body,
 * still arriving) or sits idle between requests. That one is answered `408 REQUEST_TIMEOUT` (or
 * closed, when idle) and the newcomer is served. Only when every connection is busy (a request
 * being answered, an event stream) is the newcomer refused: its first request is answered
 * `503 UNAVAILABLE` with `Retry-After` and the connection closed. Deadlines (`headersTimeoutMs`,
 * `requestTimeoutMs`) free slow connections anyway; this keeps a flood of them from filling
 * every slot in the meantime.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError } from '../errors.js';
import { rawErrorResponse, sendError } from './respond.js';

/** Connections over the bound that wait to be told so; past these, a newcomer is closed at once. */
const REFUSED_SLACK = 64;
/** How long a refused connection may take to send the request it is refused on. */
const REFUSED_GRACE_MS = 2000;

interface Current {
  req: IncomingMessage;
  res: ServerResponse;
}

export class ConnectionGuard {
  /** Open connections, oldest first (a `Set` iterates in insertion order). */
  readonly #open = new Set<Socket>();
  /** Per connection, the request being received or answered; absent between requests. */
  readonly #current = new WeakMap<Socket, Current>();
  /** Per connection, the bytes it had sent when its last answer ended: idle while unchanged. */
  readonly #readAtRest = new WeakMap<Socket, number>();
  /** Connections over the bound, refused on their first request. */
  readonly #refused = new WeakSet<Socket>();
  #refusedCount = 0;
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  /** The server's `connection` listener. */
  readonly onConnection = (socket: Socket): void => {
    if (this.#open.size >= this.#max && !this.#evictSlowest()) {
      this.#refuse(socket);
      return;
    }
    this.#open.add(socket);
    socket.once('close', () => this.#open.delete(socket));
  };

  /**
   * Call for every request before it is handled: `true` when the request is answered here (its
   * connection is over the bound), `false` to handle it.
   */
  admit(req: IncomingMessage, res: ServerResponse): boolean {
    const socket = req.socket;
    if (this.#refused.has(socket)) {
      sendError(
        res,
        new ApiError(503, 'UNAVAILABLE', 'the server is at its connection limit; retry shortly', {
          'retry-after': String(1 + Math.floor(Math.random() * 5)),
        }),
        true,
      );
      return true;
    }
    const current = { req, res };
    this.#current.set(socket, current);
    res.once('close', () => {
      if (this.#current.get(socket) !== current) return;
      this.#current.delete(socket);
      this.#readAtRest.set(socket, socket.bytesRead);
    });
    return false;
  }

  /** Answers and closes the oldest slow connection; `false` when every connection is busy. */
  #evictSlowest(): boolean {
    for (const socket of this.#open) {
      const current = this.#current.get(socket);
      if (current === undefined) {
        // No request under way: idle (closed as a keep-alive timeout would), or headers still
        // arriving (answered 408, as their deadline would).
        this.#open.delete(socket);
        if (socket.bytesRead === (this.#readAtRest.get(socket) ?? 0)) socket.end();
        else socket.end(rawErrorResponse(408, 'Request Timeout', 'REQUEST_TIMEOUT', timeoutMessage));
        socket.destroySoon();
        return true;
      }
      if (!current.req.complete && !current.res.headersSent) {
        // A body still arriving, nothing answered yet.
        this.#open.delete(socket);
        sendError(current.res, new ApiError(408, 'REQUEST_TIMEOUT', timeoutMessage), true);
        socket.destroySoon();
        return true;
      }
    }
    return false;
  }

  #refuse(socket: Socket): void {
    if (this.#refusedCount >= REFUSED_SLACK) {
      socket.destroy();
      return;
    }
    this.#refused.add(socket);
    this.#refusedCount++;
    const timer = setTimeout(() => socket.destroy(), REFUSED_GRACE_MS);
    timer.unref();
    socket.once('close', () => {
      clearTimeout(timer);
      this.#refusedCount--;
    });
  }
}

const timeoutMessage =
  'the request took too long to arrive, and the server needed the connection for another client';
