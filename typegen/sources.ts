/**
 * Where `flagwire types` reads flags: one environment with its API key (`GET /flags`: a
 * read-only key is enough), or every environment of a project with the server's admin token
 * (`docs/protocol.md` §10.3: `GET /admin/api/overview`, then each environment's flags).
 */

import { createManagementClient, type Flag } from '../src/index.js';
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

/** The flags to generate from, as `render` takes them. */
export async function readSource(credentials: Credentials, signal?: AbortSignal): Promise<TypesSource> {
  const options = signal ? { signal } : {};
  if ('apiKey' in credentials) {
    const flags = await createManagementClient(credentials).flags.list(options);
    return { environments: [{ flags }] };
  }
  const { baseUrl, adminToken, project } = credentials;
  // The admin API lives at the server's root, beside the management API's `/api/v1`.
  const settings: RequestSettings = {
    base: new URL('/admin/api', baseUrl).href,
    authorization: `Bearer ${adminToken}`,
    fetch: (input, init) => globalThis.fetch(input, init),
    timeoutMs: 10_000,
    retries: 2,
  };
  const overview = await call<Overview>(settings, 'GET', '/overview', undefined, options);
  const found = overview.projects.find((p) => p.key === project);
  if (!found) {
    const known = overview.projects.map((p) => p.key).join(', ') || 'none';
    throw new UnknownProjectError(`the server has no project "${project}" (projects: ${known})`);
  }
  const segment = encodeURIComponent;
  const environments = await Promise.all(
    found.environments.map(async ({ key }) => ({
      environment: key,
      flags: await call<Flag[]>(
        settings,
        'GET',
        `/environments/${segment(project)}/${segment(key)}/flags`,
        undefined,
        options,
      ),
    })),
  );
  return { project, environments };
}
