/**
 * Where `flagwire types` reads flags: one environment with its API key (`GET /flags`: a
 * read-only key is enough), or every environment of a project with the server's admin token
 * (`docs/protocol.md` §10.3: `GET /admin/api/overview`, then each environment's flags). An answer
 * that is not what those sections say fails as `INVALID_RESPONSE`, naming the request: the tool
 * never types flags from a page that is not theirs.
 */

import { resolveConnection } from '../src/core/connection.js';
import { requestError } from '../src/errors.js';
import type { Flag } from '../src/index.js';
import { call, type RequestSettings } from '../src/management/request.js';
import type { TypesSource } from './render.js';

/** How to reach the server: the management base URL and one credential. */
export type Credentials =
  | { baseUrl: string; apiKey: string }
  | { baseUrl: string; adminToken: string; project: string };

interface Overview {
  projects: Array<{ key: string; environments: Array<{ key: string }> }>;
}

/** Thrown for a project the server does not have. */
export class UnknownProjectError extends Error {
  override readonly name = 'UnknownProjectError';
}

type Entry = Record<string, unknown>;

/** Whether `value` is an array of objects that each pass `item`. */
const isList = (value: unknown, item: (entry: Entry) => boolean): boolean =>
  Array.isArray(value) && value.every((entry) => typeof entry === 'object' && entry !== null && item(entry));

/** What `render` reads of a flag: its key, type, variants (but for booleans) and description. */
const isFlag = (flag: Entry): boolean =>
  typeof flag.key === 'string' &&
  (flag.description == null || typeof flag.description === 'string') &&
  (flag.type === 'boolean' ||
    flag.type === 'rollout' ||
    (['string', 'number', 'json'].includes(flag.type as string) &&
      typeof flag.variants === 'object' &&
      flag.variants !== null &&
      !Array.isArray(flag.variants)));

const isOverview = (value: unknown): boolean =>
  isList([value], (overview) =>
    isList(
      overview.projects,
      (p) => typeof p.key === 'string' && isList(p.environments, (e) => typeof e.key === 'string'),
    ),
  );

/** `GET path`, its answer checked by `valid` (else `INVALID_RESPONSE`, saying it is not `what`). */
async function read<T>(
  settings: RequestSettings,
  path: string,
  valid: (value: unknown) => boolean,
  what: string,
  signal: AbortSignal | undefined,
): Promise<T> {
  const answer = await call<unknown>(settings, 'GET', path, undefined, signal ? { signal } : {});
  if (!valid(answer))
    throw requestError(
      'INVALID_RESPONSE',
      'GET',
      `${settings.base}${path}`,
      ` answered something that is not ${what}`,
    );
  return answer as T;
}

const flagList = (value: unknown) => isList(value, isFlag);

/** The flags to generate from, as `render` takes them. */
export async function readSource(credentials: Credentials, signal?: AbortSignal): Promise<TypesSource> {
  // The management client's defaults: 10 s a request, GETs retried twice.
  const settings = (base: string, authorization: string): RequestSettings => ({
    base,
    authorization,
    fetch: (input, init) => globalThis.fetch(input, init),
    timeoutMs: 10_000,
    retries: 2,
  });
  if ('apiKey' in credentials) {
    const { base, authorization } = resolveConnection(credentials);
    const flags = await read<Flag[]>(
      settings(base, authorization),
      '/flags',
      flagList,
      'a list of flags',
      signal,
    );
    return { environments: [{ flags }] };
  }
  const { baseUrl, adminToken, project } = credentials;
  // The admin API lives at the server's root, beside the management API's `/api/v1`.
  const admin = settings(new URL('/admin/api', baseUrl).href, `Bearer ${adminToken}`);
  const overview = await read<Overview>(admin, '/overview', isOverview, 'the admin overview', signal);
  const found = overview.projects.find((p) => p.key === project);
  if (!found) {
    const known = overview.projects.map((p) => p.key).join(', ') || 'none';
    throw new UnknownProjectError(`the server has no project "${project}" (projects: ${known})`);
  }
  const segment = encodeURIComponent;
  const environments = await Promise.all(
    found.environments.map(async ({ key }) => ({
      environment: key,
      flags: await read<Flag[]>(
        admin,
        `/environments/${segment(project)}/${segment(key)}/flags`,
        flagList,
        'a list of flags',
        signal,
      ),
    })),
  );
  return { project, environments };
}
