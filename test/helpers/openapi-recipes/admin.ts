/**
 * How the OpenAPI walk calls the admin API (`GET /admin/api/openapi.json`): its own operations,
 * and the `/api/v1` recipes of an environment's routes, as the admin API serves them under
 * `environments/{project}/{env}/` (`scopedRecipes`).
 */
import type { Recipe, WalkContext, WalkKeys } from '../openapi-walk.js';

/** The environment the scoped operations are walked in (`TEST_CONFIG`'s). */
export const ADMIN_ENV = { project: 'acme', env: 'production' } as const;
const SCOPE = `/environments/${ADMIN_ENV.project}/${ADMIN_ENV.env}`;

/** What the admin recipes need of the server. */
export interface AdminWalkServer {
  /** `http://127.0.0.1:PORT`: the page's own origin. */
  origin: string;
  token: string;
  /** The service API's base URL and keys, of `ADMIN_ENV` (for the scoped recipes' SDK calls). */
  api: { base: string; keys: WalkKeys };
}

type Params = Record<string, string>;

let made = 0;
const unique = (prefix: string) => `${prefix}-${++made}`;

async function expect201(response: Response, what: string): Promise<Record<string, unknown>> {
  if (response.status !== 201) throw new Error(`${what}: ${response.status} ${await response.text()}`);
  return (await response.json()) as Record<string, unknown>;
}

/** A project of the dashboard's own (renamed and deleted at will). */
async function project(w: WalkContext): Promise<{ project: string }> {
  const key = unique('walk-project');
  await expect201(await w.call('POST', '/projects', { key }), `creating project ${key}`);
  return { project: key };
}

/** An environment of the dashboard's own. */
async function environment(w: WalkContext): Promise<{ project: string; env: string }> {
  const { project: key } = await project(w);
  await expect201(
    await w.call('POST', `/projects/${key}/environments`, { key: 'live' }),
    `creating ${key}/live`,
  );
  return { project: key, env: 'live' };
}

/** The admin API's own operations. */
export function adminRecipes(server: AdminWalkServer): Record<string, Recipe> {
  const { origin, token } = server;
  const session = (init: RequestInit) => fetch(`${origin}/admin/api/session`, init);
  const json = { 'content-type': 'application/json' };
  return {
    'get /session': { more: async () => [await session({})] },
    'post /session': {
      body: { token },
      more: async () => [
        await session({ method: 'POST', headers: { ...json, origin }, body: '{"token": "nope"}' }),
        await session({ method: 'POST', headers: json, body: JSON.stringify({ token }) }),
        await session({ method: 'POST', headers: { ...json, origin }, body: '{"token":' }),
      ],
    },
    'delete /session': { more: async () => [await session({ method: 'DELETE' })] },
    'get /openapi.json': {
      more: async (w) => {
        const first = await w.call('GET', '/openapi.json');
        await first.body?.cancel();
        return [
          await w.call('GET', '/openapi.json', undefined, { 'if-none-match': first.headers.get('etag')! }),
        ];
      },
    },
    'get /overview': {},
    'post /projects': {
      body: { key: 'walk-created' },
      invalidBody: { key: '-bad key' },
      more: async (w) => [await w.call('POST', '/projects', { key: 'walk-created' })],
    },
    'post /projects/{project}/environments': {
      prepare: project,
      body: { key: 'walk-env' },
      invalidBody: { key: 'bad key' },
      missing: { project: 'walk-none' },
      more: async (w, { project: key }) => [
        await w.call('POST', `/projects/${key}/environments`, { key: 'walk-env' }),
      ],
    },
    'patch /projects/{project}': {
      prepare: project,
      body: ({ project: key }: Params) => ({ key: `${key}-renamed` }),
      invalidBody: { key: 'x', extra: 1 },
      missing: { project: 'walk-none' },
      more: async (w) => [await w.call('PATCH', '/projects/acme', { key: 'acme2' })],
    },
    'delete /projects/{project}': {
      prepare: project,
      missing: { project: 'walk-none' },
      more: async (w) => [await w.call('DELETE', '/projects/acme')],
    },
    'patch /environments/{project}/{env}': {
      prepare: environment,
      body: { key: 'renamed' },
      invalidBody: [],
      missing: { env: 'walk-none' },
      more: async (w) => [await w.call('PATCH', SCOPE, { key: 'prod' })],
    },
    'delete /environments/{project}/{env}': {
      prepare: environment,
      missing: { env: 'walk-none' },
      more: async (w) => [await w.call('DELETE', SCOPE)],
    },
    'get /environments/{project}/{env}/keys': {
      prepare: async () => ({ ...ADMIN_ENV }),
      missing: { env: 'walk-none' },
    },
    'post /environments/{project}/{env}/keys': {
      prepare: async () => ({ ...ADMIN_ENV }),
      body: { access: 'read-only', name: 'walked' },
      invalidBody: { access: 'admin' },
      missing: { env: 'walk-none' },
    },
    'delete /environments/{project}/{env}/keys/{id}': {
      prepare: async (w) => {
        const created = await expect201(
          await w.call('POST', `${SCOPE}/keys`, { access: 'client' }),
          'creating a key',
        );
        return { ...ADMIN_ENV, id: String(created.id) };
      },
      missing: { id: 'key_0000000000000000' },
      more: async (w) => {
        const keys = (await (await w.call('GET', `${SCOPE}/keys`)).json()) as Array<{
          id: string;
          source: string;
        }>;
        const config = keys.find((key) => key.source === 'config')!;
        return [await w.call('DELETE', `${SCOPE}/keys/${config.id}`)];
      },
    },
    'get /environments/{project}/{env}/flags': {
      prepare: async () => ({ ...ADMIN_ENV }),
      missing: { env: 'walk-none' },
    },
    'get /environments/{project}/{env}/history': {
      prepare: async () => ({ ...ADMIN_ENV }),
      query: 'flag=seeded&limit=5',
      invalidQuery: 'limit=0',
      missing: { env: 'walk-none' },
    },
    'get /events': { stream: true },
    'post /evaluate': {
      body: {
        environment: 'acme/production',
        flag: 'seeded',
        user: { key: 'walker', plan: 'pro' },
        draft: { percentage: 100 },
      },
      invalidBody: { environment: 'acme/production', flag: 'seeded', user: { key: 3 } },
      more: async (w) => [
        await w.call('POST', '/evaluate', { environment: 'acme/production', flag: 'walk-none', user: {} }),
        // A draft a PATCH would refuse: answered, as the draft's `Refused`.
        await w.call('POST', '/evaluate', {
          environment: 'acme/production',
          flag: 'seeded',
          user: {},
          draft: { percentage: 101 },
        }),
      ],
    },
    'post /copy-flags/preview': {
      prepare: environment,
      body: ({ project: key }: Params) => ({ from: 'acme/production', to: `${key}/live` }),
      invalidBody: { from: 'acme', to: 'acme/staging' },
      more: async (w) => [
        await w.call('POST', '/copy-flags/preview', { from: 'acme/production', to: 'acme/walk-none' }),
      ],
    },
    'post /copy-flags': {
      prepare: async (w) => {
        const target = await environment(w);
        const to = `${target.project}/live`;
        const preview = await w.call('POST', '/copy-flags/preview', {
          from: 'acme/production',
          to,
          flags: ['seeded'],
        });
        const { to: at } = (await preview.json()) as { to: { revision: number } };
        return { to, revision: String(at.revision) };
      },
      body: ({ to, revision }: Params) => ({
        from: 'acme/production',
        to,
        flags: ['seeded'],
        expectedRevision: Number(revision),
      }),
      invalidBody: { from: 'acme/production', to: 'acme/staging' },
      more: async (w, { to, revision }) => [
        // The copy moved the target: the same request again is refused.
        await w.call('POST', '/copy-flags', {
          from: 'acme/production',
          to,
          flags: ['seeded'],
          expectedRevision: Number(revision),
        }),
        await w.call('POST', '/copy-flags', {
          from: 'acme/walk-none',
          to,
          expectedRevision: Number(revision),
        }),
      ],
    },
  };
}

/**
 * The service API's `recipes` (`"get /webhooks/{id}"`), as the admin API serves their routes in
 * `ADMIN_ENV` (`"get /environments/{project}/{env}/webhooks/{id}"`): what they make, they make
 * through the admin API; their SDK calls go to the service API (`server.api`); and each also
 * names an environment that does not exist (`404`).
 */
export function scopedRecipes(
  recipes: Record<string, Recipe>,
  server: AdminWalkServer,
): Record<string, Recipe> {
  const inEnv = (w: WalkContext): WalkContext => ({
    base: server.api.base,
    keys: server.api.keys,
    call: (method, path, body, headers) => w.call(method, `${SCOPE}${path}`, body, headers),
  });
  return Object.fromEntries(
    Object.entries(recipes).map(([name, recipe]) => {
      const [method, path] = name.split(' ') as [string, string];
      const scoped = `/environments/{project}/{env}${path}`;
      const nowhere = (params: Record<string, string>) =>
        scoped.replace(/\{([^}]+)\}/g, (_, p: string) =>
          encodeURIComponent(p === 'env' ? 'walk-none' : (params[p] ?? `missing-${p}`)),
        );
      const wrapped: Recipe = {
        ...recipe,
        prepare: async (w) => ({ ...ADMIN_ENV, ...(await recipe.prepare?.(inEnv(w))) }),
        more: async (w, params) => [
          ...((await recipe.more?.(inEnv(w), params)) ?? []),
          await w.call(method.toUpperCase(), nowhere(params)),
        ],
      };
      return [`${method} ${scoped}`, wrapped];
    }),
  );
}
