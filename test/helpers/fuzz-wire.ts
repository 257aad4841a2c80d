/**
 * Wire-level plumbing for the HTTP fuzzer (`test/integration/hostile/fuzz-http.test.ts`): three ways to send
 * a request (raw `node:net` bytes, `node:http`, `fetch`) that all report the same
 * `Outcome`, and a small HTTP/1.x response parser for the raw path. Event streams are
 * cut right after their headers; every socket has a timeout so a hang is reported, not
 * waited out.
 */
import { type Agent, request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import { connect } from 'node:net';

export interface WireResponse {
  status: number;
  /** Lower-cased names, in the order received. */
  headers: Array<[string, string]>;
  body: Buffer;
  /** An event stream, cut after its headers (the body is not read). */
  stream: boolean;
  /** The answer to a HEAD request (no body by definition). */
  head: boolean;
  /** Raw only: an answer to a HEAD request that nevertheless carried a body (and closed). */
  bodyOnHead?: boolean;
}

export interface Outcome {
  /** Final (non-1xx) responses, in order. */
  responses: WireResponse[];
  /** Bytes from the server that do not form a complete HTTP response. */
  leftover: Buffer;
  /** Transport error (reset, refused, "other side closed", ...), if any. */
  transportError: string | undefined;
  /** Neither an answer nor a close arrived within the timeout. */
  timedOut: boolean;
  /** The client could not even send this request (fetch/node refused it); nothing reached the server. */
  notSent?: boolean;
}

const EMPTY = Buffer.alloc(0);
const HEAD_END = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');

export function headerOf(response: WireResponse, name: string): string | undefined {
  return response.headers.find(([key]) => key === name)?.[1];
}

type ParseStep =
  | { kind: 'response'; response: WireResponse; informational: boolean; end: number }
  | { kind: 'incomplete' }
  | { kind: 'invalid' };

/** Decodes a chunked body starting at `start`; `end` is the offset after the last chunk and trailers. */
function decodeChunked(buf: Buffer, start: number): { body: Buffer; end: number } | 'incomplete' | 'invalid' {
  const parts: Buffer[] = [];
  let p = start;
  for (;;) {
    const lineEnd = buf.indexOf(CRLF, p);
    if (lineEnd < 0) return 'incomplete';
    const sizeText = buf.subarray(p, lineEnd).toString('latin1').split(';', 1)[0]!.trim();
    if (!/^[0-9a-fA-F]{1,8}$/.test(sizeText)) return 'invalid';
    const size = Number.parseInt(sizeText, 16);
    p = lineEnd + 2;
    if (size === 0) {
      // optional trailers, then an empty line
      if (buf.length < p + 2) return 'incomplete';
      if (buf[p] === 0x0d && buf[p + 1] === 0x0a) return { body: Buffer.concat(parts), end: p + 2 };
      const trailersEnd = buf.indexOf(HEAD_END, p);
      if (trailersEnd < 0) return 'incomplete';
      return { body: Buffer.concat(parts), end: trailersEnd + 4 };
    }
    if (buf.length < p + size + 2) return 'incomplete';
    parts.push(buf.subarray(p, p + size));
    p += size;
    if (buf[p] !== 0x0d || buf[p + 1] !== 0x0a) return 'invalid';
    p += 2;
  }
}

function parseOne(buf: Buffer, start: number, method: string, closed: boolean): ParseStep {
  const headEnd = buf.indexOf(HEAD_END, start);
  if (headEnd < 0) return { kind: 'incomplete' };
  const lines = buf.subarray(start, headEnd).toString('latin1').split('\r\n');
  const statusLine = /^HTTP\/1\.[01] (\d{3})(?: .*)?$/.exec(lines[0] ?? '');
  if (!statusLine) return { kind: 'invalid' };
  const status = Number(statusLine[1]);
  const headers: Array<[string, string]> = [];
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0) return { kind: 'invalid' };
    headers.push([line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()]);
  }
  const bodyStart = headEnd + 4;
  const head = method === 'HEAD';
  const base = { status, headers, body: EMPTY, stream: false, head };
  const get = (name: string) => headers.find(([key]) => key === name)?.[1];
  if (status < 200) return { kind: 'response', informational: true, end: bodyStart, response: base };
  if (head && status >= 400 && closed && /close/i.test(get('connection') ?? '')) {
    // An error with a body after all (then the close): parse it, and let the checks judge.
    const length = Number(get('content-length'));
    if (buf.length - bodyStart === length) {
      const body = buf.subarray(bodyStart);
      const response = { ...base, body, head: false, bodyOnHead: true };
      return { kind: 'response', informational: false, end: buf.length, response };
    }
  }
  if (head || status === 204 || status === 304) {
    return { kind: 'response', informational: false, end: bodyStart, response: base };
  }
  if ((get('content-type') ?? '').toLowerCase().startsWith('text/event-stream')) {
    return { kind: 'response', informational: false, end: buf.length, response: { ...base, stream: true } };
  }
  const te = get('transfer-encoding');
  if (te !== undefined && /chunked\s*$/i.test(te)) {
    const decoded = decodeChunked(buf, bodyStart);
    if (decoded === 'invalid') return { kind: 'invalid' };
    if (decoded === 'incomplete') return closed ? { kind: 'invalid' } : { kind: 'incomplete' };
    return {
      kind: 'response',
      informational: false,
      end: decoded.end,
      response: { ...base, body: decoded.body },
    };
  }
  const cl = get('content-length');
  if (cl !== undefined) {
    if (!/^\d+$/.test(cl)) return { kind: 'invalid' };
    const length = Number(cl);
    if (buf.length - bodyStart < length) return closed ? { kind: 'invalid' } : { kind: 'incomplete' };
    return {
      kind: 'response',
      informational: false,
      end: bodyStart + length,
      response: { ...base, body: buf.subarray(bodyStart, bodyStart + length) },
    };
  }
  // No framing: the body runs until the server closes.
  if (!closed) return { kind: 'incomplete' };
  return {
    kind: 'response',
    informational: false,
    end: buf.length,
    response: { ...base, body: buf.subarray(bodyStart) },
  };
}

/** Parses every complete response in `buf`; `methods[i]` is the method of the i-th request (HEAD framing). */
export function parseResponses(
  buf: Buffer,
  methods: readonly string[],
  closed: boolean,
): { responses: WireResponse[]; leftover: Buffer; sawStream: boolean } {
  const responses: WireResponse[] = [];
  let offset = 0;
  while (offset < buf.length) {
    const step = parseOne(buf, offset, methods[responses.length] ?? 'GET', closed);
    if (step.kind !== 'response') {
      return { responses, leftover: buf.subarray(offset), sawStream: false };
    }
    offset = step.end;
    if (step.informational) continue;
    responses.push(step.response);
    if (step.response.stream) return { responses, leftover: EMPTY, sawStream: true };
  }
  return { responses, leftover: EMPTY, sawStream: false };
}

export interface RawOptions {
  port: number;
  chunks: readonly Buffer[];
  /** Methods of the requests in `chunks`, in order. */
  methods: readonly string[];
  /** Half-close (FIN) after writing, so a server waiting for more bytes sees the end. */
  halfClose: boolean;
  timeoutMs: number;
}

/** Writes raw bytes on a fresh TCP connection and collects what comes back until the server closes. */
export function rawExchange(options: RawOptions): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = connect({ port: options.port, host: '127.0.0.1' });
    const received: Buffer[] = [];
    let transportError: string | undefined;
    let timedOut = false;
    let cut = false;
    socket.setTimeout(options.timeoutMs, () => {
      timedOut = true;
      socket.destroy();
    });
    socket.on('connect', () => {
      for (const chunk of options.chunks) socket.write(chunk);
      if (options.halfClose) socket.end();
    });
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      if (cut) return;
      // An event stream never ends: stop at its headers.
      if (parseResponses(Buffer.concat(received), options.methods, false).sawStream) {
        cut = true;
        socket.destroy();
      }
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      transportError = error.code ?? error.message;
    });
    socket.on('close', () => {
      const { responses, leftover } = parseResponses(Buffer.concat(received), options.methods, !cut);
      resolve({ responses, leftover, transportError, timedOut });
    });
  });
}

function describeError(error: unknown): string {
  const e = error as { name?: string; message?: string; code?: string; cause?: unknown };
  const cause = e.cause as { code?: string; message?: string } | undefined;
  return [e.name, e.code, e.message, cause?.code, cause?.message].filter(Boolean).join(' / ');
}

export interface FetchOptions {
  url: string;
  method: string;
  headers: ReadonlyArray<readonly [string, string]>;
  body: Buffer | undefined;
  timeoutMs: number;
}

/** One request through the global `fetch` (undici). Builds everything first, so a refused request is `notSent`. */
export async function viaFetch(options: FetchOptions): Promise<Outcome> {
  let init: RequestInit;
  try {
    const headers = new Headers();
    for (const [name, value] of options.headers) headers.append(name, value);
    init = {
      method: options.method,
      headers,
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs),
    };
    if (options.body !== undefined) init.body = new Uint8Array(options.body);
    new Request(options.url, init);
  } catch (error) {
    return {
      responses: [],
      leftover: EMPTY,
      transportError: describeError(error),
      timedOut: false,
      notSent: true,
    };
  }
  try {
    const res = await fetch(options.url, init);
    const headers: Array<[string, string]> = [];
    res.headers.forEach((value, name) => {
      headers.push([name, value]);
    });
    const head = options.method.toUpperCase() === 'HEAD';
    if ((res.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream')) {
      await res.body?.cancel();
      const response = { status: res.status, headers, body: EMPTY, stream: true, head };
      return { responses: [response], leftover: EMPTY, transportError: undefined, timedOut: false };
    }
    const body = Buffer.from(await res.arrayBuffer());
    const response = { status: res.status, headers, body, stream: false, head };
    return { responses: [response], leftover: EMPTY, transportError: undefined, timedOut: false };
  } catch (error) {
    const timedOut = (error as Error)?.name === 'TimeoutError';
    return { responses: [], leftover: EMPTY, transportError: describeError(error), timedOut };
  }
}

export interface NodeOptions {
  port: number;
  agent: Agent | false;
  method: string;
  path: string;
  headers: OutgoingHttpHeaders;
  setHost: boolean;
  /** Body pieces, written in order. */
  body: readonly Buffer[];
  /** Send the body with `Transfer-Encoding: chunked` (one write per piece) instead of a Content-Length. */
  chunked: boolean;
  /** Send only this many body bytes, then destroy the request (a client that gives up mid-upload). */
  abortAfterBytes: number | undefined;
  timeoutMs: number;
}

/** One request through `node:http`. */
export function viaNode(options: NodeOptions): Promise<Outcome> {
  return new Promise((resolve) => {
    let finished = false;
    const finish = (outcome: Outcome) => {
      if (finished) return;
      finished = true;
      resolve(outcome);
    };
    let timedOut = false;
    let aborted = false;
    let req: ReturnType<typeof httpRequest>;
    try {
      req = httpRequest({
        host: '127.0.0.1',
        port: options.port,
        method: options.method,
        path: options.path,
        headers: options.headers,
        setHost: options.setHost,
        agent: options.agent,
      });
    } catch (error) {
      finish({
        responses: [],
        leftover: EMPTY,
        transportError: describeError(error),
        timedOut: false,
        notSent: true,
      });
      return;
    }
    const head = options.method.toUpperCase() === 'HEAD';
    req.setTimeout(options.timeoutMs, () => {
      timedOut = true;
      req.destroy();
    });
    req.on('response', (res) => {
      const headers: Array<[string, string]> = [];
      for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
        headers.push([res.rawHeaders[i]!.toLowerCase(), res.rawHeaders[i + 1]!]);
      }
      const status = res.statusCode ?? 0;
      if ((res.headers['content-type'] ?? '').toLowerCase().startsWith('text/event-stream')) {
        res.destroy();
        req.destroy();
        const response = { status, headers, body: EMPTY, stream: true, head };
        finish({ responses: [response], leftover: EMPTY, transportError: undefined, timedOut: false });
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const response = { status, headers, body: Buffer.concat(chunks), stream: false, head };
        finish({ responses: [response], leftover: EMPTY, transportError: undefined, timedOut: false });
      });
      res.on('error', (error) => {
        finish({
          responses: [],
          leftover: EMPTY,
          transportError: `response: ${describeError(error)}`,
          timedOut,
        });
      });
    });
    req.on('error', (error) => {
      finish({
        responses: [],
        leftover: EMPTY,
        transportError: aborted ? 'client aborted' : describeError(error),
        timedOut,
      });
    });
    req.on('close', () => {
      finish({ responses: [], leftover: EMPTY, transportError: 'closed without a response', timedOut });
    });
    if (options.abortAfterBytes !== undefined) {
      const all = Buffer.concat(options.body);
      req.write(all.subarray(0, options.abortAfterBytes), () => {
        aborted = true;
        req.destroy();
      });
      return;
    }
    // node:http sends a GET/HEAD/DELETE/OPTIONS body without any framing unless told how.
    if (options.chunked && !req.hasHeader('transfer-encoding')) req.setHeader('transfer-encoding', 'chunked');
    if (!options.chunked) {
      const body = Buffer.concat(options.body);
      if (body.length > 0 && !req.hasHeader('content-length')) req.setHeader('content-length', body.length);
      req.end(body);
    } else {
      for (const piece of options.body) req.write(piece);
      req.end();
    }
  });
}
