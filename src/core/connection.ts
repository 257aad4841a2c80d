/**
 * The connection settings every Flagwire client takes (`baseUrl`, `apiKey`, `fetch`),
 * checked once: programmer errors throw at once with a message that says how to fix them.
 */

export interface Connection {
  /** The management base URL without a trailing slash, e.g. `http://127.0.0.1:8787/api/v1`. */
  base: string;
  /** The `Authorization` header value. */
  authorization: string;
  /** `fetch`, called as a plain function (some runtimes' fetch throws when called as a method of another object). */
  fetch: typeof fetch;
}

/** Throws the `TypeError` of a programmer error. */
export function fail(problem: string): never {
  throw new TypeError(`flagwire: ${problem}`);
}

export function resolveConnection(options: {
  baseUrl: string;
  apiKey: string;
  fetch?: typeof fetch | undefined;
}): Connection {
  // `Object()`: no options at all fails as a missing `apiKey`.
  const { apiKey, baseUrl } = Object(options) as typeof options;
  if (typeof apiKey !== 'string' || !/^\S+$/.test(apiKey)) {
    fail('"apiKey" is required, without whitespace');
  }
  let url: URL | undefined;
  try {
    url = new URL(baseUrl);
  } catch {}
  if (!url || !/^https?:$/.test(url.protocol)) {
    fail('"baseUrl" must be an absolute http or https URL');
  }
  const fetchImpl = options.fetch ?? globalThis.fetch;
  if (typeof fetchImpl !== 'function') fail('no fetch: pass the "fetch" option');
  return {
    base: url.href.replace(/\/+$/, ''),
    authorization: `Bearer ${apiKey}`,
    fetch: (input, init) => fetchImpl(input, init),
  };
}
