/**
 * Walks an OpenAPI document against the live server that serves it: every operation is called
 * with a valid request and with the requests the pipeline refuses (no key, a key that may not
 * call it, a body or query the schema refuses, a body too large or not JSON, a path naming
 * nothing), plus what each recipe adds; every answer must be one the operation documents and
 * match that answer's schema, and every status an operation documents must be reached.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS: its default export arrives as the module or as `.default`.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => void;

export interface WalkKeys {
  full: string;
  readOnly: string;
  client: string;
}

/** What a recipe's steps are given. */
export interface WalkContext {
  /** The API's base URL (`http://127.0.0.1:PORT/api/v1`). */
  base: string;
  keys: WalkKeys;
  /** fetch against `base` with the full key, a JSON body when given. */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
}

/** How to call one operation, `"get /webhooks/{id}"`. */
export interface Recipe {
  /** Makes what a valid request needs (a flag, a webhook) and answers the path's parameters. */
  prepare?: (w: WalkContext) => Promise<Record<string, string>>;
  /** A valid body (for operations that take one). */
  body?: unknown | ((params: Record<string, string>) => unknown);
  /** A valid query, without `?`. */
  query?: string;
  /** A query the operation refuses (`400`). */
  invalidQuery?: string;
  /** A body the operation refuses (`400`); `[]` unless given. */
  invalidBody?: unknown;
  /** The largest body it takes (`413` past it); 1 MiB unless given. */
  bodyLimit?: number;
  /** Path parameters naming nothing (`404`). */
  missing?: Record<string, string>;
  /** Further requests, for the answers only this operation gives (`409`, `412`, `304`...). */
  more?: (w: WalkContext, params: Record<string, string>) => Promise<Response[]>;
  /** The valid answer is a stream: its head is checked, then it is let go. */
  stream?: boolean;
  /** A read-only key may call it (its answer is not a `403`). */
  readOnly?: boolean;
}

type Document = {
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation | unknown>>;
};
type Operation = {
  operationId: string;
  requestBody?: unknown;
  parameters?: Array<{ in: string; name: string }>;
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
  security?: unknown[];
};

/** How the walk calls. */
export interface WalkOptions {
  /**
   * The headers that present `key` (one of `WalkKeys`); `Authorization: Bearer <key>` unless
   * given (the admin API: its token, or its session cookie with an `Origin`).
   */
  authorize?: (key: string) => Record<string, string>;
}

export interface WalkResult {
  /** Per operation (`"post /webhooks"`): every status it answered. */
  reached: Map<string, Set<number>>;
  /** Problems: an undocumented status, a body not matching its schema, a documented status never reached. */
  problems: string[];
  /** How many requests were made. */
  requests: number;
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];
const pointer = (...parts: string[]) =>
  parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

/** Walks `doc` (served at `origin`), calling each operation as `recipes` say. */
export async function walkDocument(
  doc: Document,
  origin: string,
  keys: WalkKeys,
  recipes: Record<string, Recipe>,
  options: WalkOptions = {},
): Promise<WalkResult> {
  const authorize = options.authorize ?? ((key: string) => ({ authorization: `Bearer ${key}` }));
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  addFormats(ajv);
  ajv.addSchema(doc as object, 'doc');
  const base = `${origin}${doc.servers[0]!.url}`;
  const raw = (
    method: string,
    path: string,
    init: { key?: string; body?: string; headers?: Record<string, string> },
  ) =>
    fetch(`${base}${path}`, {
      method: method.toUpperCase(),
      headers: {
        ...(init.key && authorize(init.key)),
        ...(init.body !== undefined && { 'content-type': 'application/json' }),
        ...init.headers,
      },
      ...(init.body !== undefined && { body: init.body }),
    });
  const w: WalkContext = {
    base,
    keys,
    call: (method, path, body, headers) =>
      raw(method, path, {
        key: keys.full,
        ...(body !== undefined && { body: JSON.stringify(body) }),
        ...(headers && { headers }),
      }),
  };
  const result: WalkResult = { reached: new Map(), problems: [], requests: 0 };
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method] as Operation | undefined;
      if (!op) continue;
      const name = `${method} ${path}`;
      const recipe = recipes[name];
      if (!recipe) {
        result.problems.push(`${name}: no recipe to call it`);
        continue;
      }
      const reached = new Set<number>();
      result.reached.set(name, reached);
      const anonymous = Array.isArray(op.security) && op.security.length === 0;
      const record = async (response: Response, what: string) => {
        result.requests++;
        reached.add(response.status);
        const answer = op.responses[String(response.status)];
        if (!answer) {
          const text = await response.text().catch(() => '');
          result.problems.push(
            `${name} (${what}): ${response.status} is not documented: ${text.slice(0, 200)}`,
          );
          return;
        }
        const type = response.headers.get('content-type')?.split(';')[0] ?? '';
        const media = answer.content && Object.keys(answer.content)[0];
        if (!media) {
          await response.body?.cancel();
          return;
        }
        if (type !== media)
          result.problems.push(`${name} (${what}): ${response.status} as ${type}, documented ${media}`);
        if (media !== 'application/json') {
          await response.body?.cancel();
          return;
        }
        const body = await response.json();
        const ref = `doc#/${pointer('paths', path, method, 'responses', String(response.status), 'content', media, 'schema')}`;
        const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
        if (!validate(body))
          result.problems.push(
            `${name} (${what}): ${response.status} body does not match: ${ajv.errorsText(validate.errors)}: ${JSON.stringify(body).slice(0, 300)}`,
          );
      };
      const params = (await recipe.prepare?.(w)) ?? {};
      const at = (values: Record<string, string>) =>
        path.replace(/\{([^}]+)\}/g, (_, p: string) => encodeURIComponent(values[p] ?? `missing-${p}`));
      const valid =
        typeof recipe.body === 'function'
          ? (recipe.body as (p: Record<string, string>) => unknown)(params)
          : recipe.body;
      const validBody = op.requestBody ? JSON.stringify(valid) : undefined;
      const withQuery = (q: string | undefined) => (q ? `${at(params)}?${q}` : at(params));
      /** The valid request (its body, if it takes one) to `target`, with `key` or none. */
      const validAs = (key: string | undefined, target = at(params)) =>
        raw(method, target, { ...(key && { key }), ...(validBody !== undefined && { body: validBody }) });
      // The valid request.
      if (recipe.stream) {
        const controller = new AbortController();
        const response = await fetch(`${base}${withQuery(recipe.query)}`, {
          headers: authorize(keys.full),
          signal: controller.signal,
        });
        result.requests++;
        reached.add(response.status);
        if (!op.responses[String(response.status)])
          result.problems.push(`${name}: ${response.status} is not documented`);
        controller.abort();
      } else {
        await record(await validAs(keys.full, withQuery(recipe.query)), 'valid');
      }
      if (!anonymous) {
        await record(await validAs(undefined), 'no key');
        await record(await validAs(keys.client), 'client key');
        if (!recipe.readOnly) await record(await validAs(keys.readOnly), 'read-only key');
      }
      if (op.requestBody) {
        await record(
          await raw(method, at(params), { key: keys.full, body: JSON.stringify(recipe.invalidBody ?? []) }),
          'invalid body',
        );
        const limit = recipe.bodyLimit ?? 1024 * 1024;
        await record(
          await raw(method, at(params), { key: keys.full, body: `"${'x'.repeat(limit)}"` }),
          'body too large',
        );
        await record(
          await raw(method, at(params), {
            key: keys.full,
            body: validBody ?? '{}',
            headers: { 'content-type': 'text/plain' },
          }),
          'body not JSON',
        );
      }
      if (recipe.invalidQuery !== undefined)
        await record(
          await raw(method, `${at(params)}?${recipe.invalidQuery}`, { key: keys.full }),
          'invalid query',
        );
      if (recipe.missing)
        await record(await validAs(keys.full, at({ ...params, ...recipe.missing })), 'naming nothing');
      for (const response of (await recipe.more?.(w, params)) ?? []) await record(response, 'more');
      for (const status of Object.keys(op.responses))
        if (!reached.has(Number(status)))
          result.problems.push(`${name}: documented ${status} was never answered`);
    }
  }
  return result;
}

/** The operations `routes` serve, as `"get /flags/{key}"`. */
export function servedOperations(routes: readonly { pattern: string; methods: object }[]): string[] {
  return routes
    .flatMap((route) =>
      Object.keys(route.methods).map(
        (method) => `${method.toLowerCase()} /${route.pattern.replace(/:([A-Za-z]+)/g, '{$1}')}`,
      ),
    )
    .sort();
}

/** The operations a document lists, as `"get /flags/{key}"`, and those it lists without a description. */
export function listedOperations(doc: { paths: Record<string, Record<string, unknown>> }): {
  listed: string[];
  undescribed: string[];
} {
  const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => method !== 'parameters')
      .map(([method, op]) => ({ name: `${method} ${path}`, summary: (op as { summary: string }).summary })),
  );
  return {
    listed: operations.map((o) => o.name).sort(),
    undescribed: operations.filter((o) => o.summary.endsWith('(not described)')).map((o) => o.name),
  };
}
