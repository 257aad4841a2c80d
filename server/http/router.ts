/**
 * Path matching for the route table. Paths are split once into decoded segments; a
 * pattern segment starting with `:` captures. The management API lives under
 * `/api/v1`; the SDK routes answer there and at the root (`docs/protocol.md` §1).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Grant } from '../state/admin/key-ring.js';
import type { Access } from '../state/kernel/model.js';
import type { OperationDoc } from './operation-doc.js';

/** What a request was authenticated as: an API key's grant, or the dashboard's admin. */
export interface Authenticated {
  access: Access;
}

export interface RequestContext<G extends Authenticated = Grant> {
  req: IncomingMessage;
  res: ServerResponse;
  grant: G;
  params: Record<string, string>;
  /** Parsed JSON body, for methods declared with `body: true`. */
  body: unknown;
  /** The query string, without `?` (empty when none). */
  query: string;
}

export interface MethodSpec<G extends Authenticated = Grant> {
  handler: (ctx: RequestContext<G>) => Promise<void> | void;
  /** Whether a read-only key may call it. */
  readOnly: boolean;
  /** Whether the method takes a JSON body. */
  body: boolean;
  /** The largest body it takes, in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /** For the 403 message: "cannot <action>". */
  action: string;
  /**
   * In the admin API, the least role that may call it (`docs/protocol.md` §10.6): by default
   * `viewer` for a method a read-only key may call, `editor` for any other.
   */
  role?: 'viewer' | 'editor' | 'admin';
  /**
   * A direct write of flags or segments: refused `403 APPROVAL_REQUIRED` in an environment whose
   * changes need approvals, unless the key bypasses them (`./approvals.ts`, `docs/protocol.md` §2).
   */
  approval?: boolean;
  /** What the OpenAPI document says of it (`./openapi.ts`). */
  doc?: OperationDoc;
}

/** The least role a method needs in the admin API: its own, else `viewer` to read, `editor` to change. */
export function leastRole(spec: Pick<MethodSpec<never>, 'role' | 'readOnly'>): 'viewer' | 'editor' | 'admin' {
  return spec.role ?? (spec.readOnly ? 'viewer' : 'editor');
}

export interface Route<G extends Authenticated = Grant> {
  pattern: string;
  segments: string[];
  /** Available at the root too, not only under `/api/v1` (the SDK routes). */
  root: boolean;
  methods: Partial<Record<string, MethodSpec<G>>>;
  /** Value of the `Allow` header. */
  allow: string;
  /** Served without a key (the OpenAPI document). */
  anonymous: boolean;
}

export function defineRoute<G extends Authenticated = Grant>(
  pattern: string,
  methods: Partial<Record<string, MethodSpec<G>>>,
  root = false,
  anonymous = false,
): Route<G> {
  const names = Object.keys(methods);
  if (names.includes('GET')) names.push('HEAD');
  names.push('OPTIONS');
  const segments = pattern.split('/').filter(Boolean);
  return { pattern, segments, root, methods, allow: names.join(', '), anonymous };
}

const API_PREFIX = '/api/v1/';

/** Splits a request target into path and query; `undefined` for targets that are no path. */
export function splitTarget(url: string | undefined): { path: string; query: string } | undefined {
  if (!url) return undefined;
  let target = url;
  if (!target.startsWith('/')) {
    // absolute-form (`http://host/path`), as proxies send it
    const match = /^https?:\/\/[^/?#]*(.*)$/i.exec(target);
    if (!match) return undefined;
    target = match[1] || '/';
  }
  const hash = target.indexOf('#');
  if (hash >= 0) target = target.slice(0, hash);
  const q = target.indexOf('?');
  return q < 0 ? { path: target, query: '' } : { path: target.slice(0, q), query: target.slice(q + 1) };
}

/** A path segment percent-decoded; left as it is when it is not valid percent-encoding. */
export function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export function matchRoute<G extends Authenticated>(
  routes: readonly Route<G>[],
  path: string,
): { route: Route<G>; params: Record<string, string> } | undefined {
  let rest: string;
  let underApi: boolean;
  if (path.startsWith(API_PREFIX)) {
    rest = path.slice(API_PREFIX.length);
    underApi = true;
  } else {
    rest = path;
    underApi = false;
  }
  const segments = rest.split('/');
  if (segments[0] === '') segments.shift();
  if (segments.length > 1 && segments[segments.length - 1] === '') segments.pop();
  for (const route of routes) {
    if (!underApi && !route.root) continue;
    if (route.segments.length !== segments.length) continue;
    let params: Record<string, string> | undefined;
    let ok = true;
    for (let i = 0; i < segments.length; i++) {
      const want = route.segments[i]!;
      const got = segments[i]!;
      if (want.startsWith(':')) {
        if (got === '') {
          ok = false;
          break;
        }
        params ??= {};
        params[want.slice(1)] = decodeSegment(got);
      } else if (want !== got) {
        ok = false;
        break;
      }
    }
    if (ok) return { route, params: params ?? {} };
  }
  return undefined;
}
