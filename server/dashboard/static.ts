/**
 * Serves the built dashboard (`dist/dashboard/`, made by `npm run build`) with a strict
 * Content-Security-Policy (`docs/protocol.md` §10.1). The few files are read once, at start.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

interface Asset {
  body: Buffer;
  type: string;
}

/** The folder of the built dashboard: beside the bundled server, or `dist/` from the sources. */
function assetDir(): string | undefined {
  const here = typeof __dirname === 'string' ? __dirname : dirname(fileURLToPath(import.meta.url));
  return [join(here, 'dashboard'), join(here, '..', '..', 'dist', 'dashboard')].find((dir) =>
    existsSync(join(dir, 'index.html')),
  );
}

export class DashboardAssets {
  readonly #files = new Map<string, Asset>();

  constructor(dir = assetDir()) {
    if (!dir) return;
    for (const name of readdirSync(dir)) {
      const type = TYPES[name.slice(name.lastIndexOf('.'))];
      if (type) this.#files.set(name, { body: readFileSync(join(dir, name)), type });
    }
  }

  /** Answers `GET /`, `/index.html` and `/dashboard/<file>`; false for any other path. */
  serve(req: IncomingMessage, res: ServerResponse, path: string): boolean {
    const name =
      path === '/' || path === '/index.html'
        ? 'index.html'
        : path.startsWith('/dashboard/')
          ? path.slice(11)
          : undefined;
    if (name === undefined) return false;
    const asset = this.#files.get(name);
    if (!asset) {
      const body = JSON.stringify({
        error: 'NOT_FOUND',
        message:
          this.#files.size === 0
            ? 'the dashboard is not built: run `npm run build`'
            : `no dashboard file ${JSON.stringify(name)}`,
      });
      res.writeHead(404, { ...SECURITY_HEADERS, 'content-type': 'application/json' }).end(body);
      return true;
    }
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'content-type': asset.type,
      'content-length': String(asset.body.length),
      'cache-control': 'no-cache',
    });
    res.end(req.method === 'HEAD' ? undefined : asset.body);
    return true;
  }
}
