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

export function resolveConnection(options: {
  baseUrl: string;
  apiKey: string;
  fetch?: typeof fetch | undefined;
}): Connection {
  const { apiKey, baseUrl } = options;
  if (typeof apiKey !== 'string' || apiKey.length === 0) {
    throw new TypeError('flagwire: "apiKey" is required: pass the API key of your environment (fw_live_...)');
  }
  if (/\s/.test(apiKey)) {
    throw new TypeError('flagwire: "apiKey" contains whitespace; copy the key without spaces or line breaks');
  }
  let url: URL | undefined;
  try {
    url = new URL(String(baseUrl));
  } catch {}
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new TypeError(
      `flagwire: "baseUrl" must be an absolute http or https URL such as "http://127.0.0.1:8787/api/v1", got ${JSON.stringify(baseUrl)}`,
    );
  }
  const fetchImpl = options.fetch ?? globalThis.fetch;
  if (typeof fetchImpl !== 'function') {
    throw new TypeError('flagwire: no global fetch in this runtime; pass one as the "fetch" option');
  }
  return {
    base: url.href.replace(/\/+$/, ''),
    authorization: `Bearer ${apiKey}`,
    fetch: (input, init) => fetchImpl(input, init),
  };
}
