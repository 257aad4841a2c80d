/**
 * Reading a JSON request body: media type (415), size (413, 1 MiB), UTF-8 and JSON
 * syntax (400 `INVALID_JSON`), presence (400 `VALIDATION_ERROR`). `docs/protocol.md` §4.
 */
import type { IncomingMessage } from 'node:http';
import { MAX_BODY_BYTES } from '../../src/core/limits.js';
import { ApiError } from '../errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

function isJsonMediaType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const type = header.split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

const tooLarge = (max: number) =>
  new ApiError(
    413,
    'PAYLOAD_TOO_LARGE',
    `request body is larger than ${max} bytes (${max / (1024 * 1024)} MiB)`,
  );

/** Reads and parses the body, at most `max` bytes (1 MiB unless a route says more); `undefined` when there is none. */
export async function readJsonBody(req: IncomingMessage, max = MAX_BODY_BYTES): Promise<unknown> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > max) throw tooLarge(max);
  const hasBody =
    (declared !== undefined && declared !== '0') || req.headers['transfer-encoding'] !== undefined;
  if (hasBody) {
    const encoding = req.headers['content-encoding'];
    if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
      throw new ApiError(
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        `Content-Encoding ${JSON.stringify(encoding)} is not supported`,
      );
    }
    if (!isJsonMediaType(req.headers['content-type'])) {
      throw new ApiError(
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        `request body must be sent as Content-Type: application/json, got ${JSON.stringify(req.headers['content-type'] ?? null)}`,
      );
    }
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) throw tooLarge(max);
    chunks.push(chunk);
  }
  if (size === 0) return undefined;
  if (!hasBody) {
    throw new ApiError(
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      'request body must be sent as Content-Type: application/json',
    );
  }
  let text: string;
  try {
    text = utf8.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
  } catch {
    throw new ApiError(400, 'INVALID_JSON', 'request body is not valid UTF-8');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ApiError(400, 'INVALID_JSON', `request body is not valid JSON: ${(error as Error).message}`);
  }
}
