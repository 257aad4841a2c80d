/**
 * Compressed `GET /sdk/flags` bodies (`docs/protocol.md` §5.2): brotli or gzip, whichever the
 * request accepts (brotli first), made once per revision off the event loop (zlib's thread
 * pool) and shared by every request for that revision; bodies under 1 KiB go as they are.
 */
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

export type Encoding = 'br' | 'gzip';

/** Bodies smaller than this are not worth a compression. */
export const MIN_COMPRESSED_BYTES = 1024;

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

const compress: Record<Encoding, (bytes: Buffer) => Promise<Buffer>> = {
  // Quality 5: within a few percent of the best ratio at a fraction of quality 11's time.
  br: (bytes) =>
    brotli(bytes, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 5,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      },
    }),
  gzip: (bytes) => gzipAsync(bytes, { level: 6 }),
};

/**
 * The encoding to answer with for an `Accept-Encoding` header: `br` if acceptable, else `gzip`,
 * else none (identity). `q=0` refuses; `*` accepts both.
 */
export function pickEncoding(header: string | string[] | undefined): Encoding | undefined {
  if (typeof header !== 'string' || header === '') return undefined;
  let br = -1;
  let gz = -1;
  let star = -1;
  for (const part of header.split(',')) {
    const [rawName, ...params] = part.split(';');
    const name = rawName!.trim().toLowerCase();
    let q = 1;
    for (const param of params) {
      const [k, v] = param.split('=');
      if (k?.trim().toLowerCase() === 'q') q = Number(v);
    }
    if (!Number.isFinite(q)) q = 0;
    if (name === 'br') br = q;
    else if (name === 'gzip' || name === 'x-gzip') gz = q;
    else if (name === '*') star = q;
  }
  if (br < 0) br = star;
  if (gz < 0) gz = star;
  if (br > 0 && br >= gz) return 'br';
  if (gz > 0) return 'gzip';
  return undefined;
}

/** A compressed body and the headers of its 200, both made once. */
export interface Encoded {
  bytes: Buffer;
  headers: Readonly<Record<string, string>>;
}

/** One body, compressed on first demand per encoding, the promise shared meanwhile. */
export class EncodedBodies {
  readonly #bytes: Buffer;
  readonly #headers: Readonly<Record<string, string>>;
  readonly #done = new Map<Encoding, Encoded>();
  readonly #pending = new Map<Encoding, Promise<Encoded>>();

  /** `headers`: those of every answer for this body, to which the encoding's are added. */
  constructor(bytes: Buffer, headers: Readonly<Record<string, string>>) {
    this.#bytes = bytes;
    this.#headers = headers;
  }

  /** The compressed body if it is ready (the hot path: no promise). */
  ready(encoding: Encoding): Encoded | undefined {
    return this.#done.get(encoding);
  }

  get(encoding: Encoding): Promise<Encoded> {
    const done = this.#done.get(encoding);
    if (done) return Promise.resolve(done);
    let pending = this.#pending.get(encoding);
    if (!pending) {
      pending = compress[encoding](this.#bytes).then((bytes) => {
        const headers = {
          ...this.#headers,
          'content-encoding': encoding,
          'content-length': String(bytes.length),
        };
        const encoded = { bytes, headers };
        this.#done.set(encoding, encoded);
        this.#pending.delete(encoding);
        return encoded;
      });
      this.#pending.set(encoding, pending);
    }
    return pending;
  }
}
