/** Writing answers: JSON bodies, JSON errors, CORS headers on everything (`docs/protocol.md` §4). */
import type { ServerResponse } from 'node:http';
import { CORS_HEADERS } from '../cors.js';
import type { ApiError } from '../errors.js';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers?: Record<string, string>,
): void {
  sendBytes(res, status, Buffer.from(JSON.stringify(body)), headers);
}

export function sendBytes(
  res: ServerResponse,
  status: number,
  bytes: Buffer,
  headers?: Record<string, string>,
): void {
  res.writeHead(
    status,
    Object.assign({}, CORS_HEADERS, headers, {
      'content-type': 'application/json',
      'content-length': String(bytes.length),
    }),
  );
  res.end(bytes);
}

export function sendEmpty(res: ServerResponse, status: number, headers?: Record<string, string>): void {
  res.writeHead(status, Object.assign({}, CORS_HEADERS, headers));
  res.end();
}

export function sendError(res: ServerResponse, error: ApiError, close = false): void {
  const headers: Record<string, string> = { ...error.headers };
  if (close) headers.connection = 'close';
  sendJson(res, error.status, { error: error.code, message: error.message, ...error.details }, headers);
}

/** The raw HTTP/1.1 bytes of a JSON error, for sockets the parser rejected before a response existed. */
export function rawErrorResponse(
  status: number,
  reason: string,
  code: string,
  message: string,
  headOnly = false,
): string {
  const body = JSON.stringify({ error: code, message });
  return (
    `HTTP/1.1 ${status} ${reason}\r\n` +
    'Content-Type: application/json\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Access-Control-Allow-Origin: *\r\n' +
    'Connection: close\r\n\r\n' +
    (headOnly ? '' : body)
  );
}
