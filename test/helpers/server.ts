/**
 * Test harness: a real reference server on 127.0.0.1:0 (in this process), with typed
 * helpers to call it. Every test file starts its own server and closes it.
 */
import { inject } from 'vitest';
import {
  type FlagwireConfig,
  type FlagwireServer,
  type StartServerOptions,
  startServer,
} from '../../server/index.js';
import { createDatabaseAt } from './postgres.js';

export interface TestServer {
  server: FlagwireServer;
  /** Management base, `${server.url}/api/v1`. */
  base: string;
  fullKey: string;
  readKey: string;
  /** fetch against `base` with the full key (or `key`), JSON body when given. */
  api(method: string, path: string, body?: unknown, key?: string): Promise<Response>;
  close(): Promise<void>;
}

/** Two fixed keys per environment, so tests can name them. */
export const KEYS = {
  acmeProdFull: 'fw_live_AcmeProdFull00000000000000000000',
  acmeProdRead: 'fw_live_AcmeProdRead00000000000000000000',
  acmeStageFull: 'fw_live_AcmeStageFull0000000000000000000',
  otherFull: 'fw_live_OtherFull00000000000000000000000',
} as const;

export const TEST_CONFIG: FlagwireConfig = {
  projects: [
    {
      key: 'acme',
      environments: [
        {
          key: 'production',
          apiKeys: [
            { key: KEYS.acmeProdFull, access: 'full' },
            { key: KEYS.acmeProdRead, access: 'read-only' },
          ],
          flags: [{ key: 'seeded', type: 'rollout', enabled: true, percentage: 25 }],
        },
        { key: 'staging', apiKeys: [{ key: KEYS.acmeStageFull, access: 'full' }] },
      ],
    },
    {
      key: 'other',
      environments: [{ key: 'production', apiKeys: [{ key: KEYS.otherFull, access: 'full' }] }],
    },
  ],
};

/** Server options, where `config: undefined` asks for the default project instead of `TEST_CONFIG`. */
export type TestServerOptions = Omit<StartServerOptions, 'config'> & { config?: FlagwireConfig | undefined };

/** The store test servers use unless a test names one: `postgres` in the run's postgres project. */
export const TEST_STORE = process.env.FLAGWIRE_TEST_STORE === 'postgres' ? 'postgres' : 'journal';

/** A fresh database in the run's Postgres (test/helpers/postgres-setup.ts); answers its URL. */
export async function freshDatabase(): Promise<string> {
  // The global setup either started it or failed the whole run.
  return createDatabaseAt(inject('postgres').url);
}

/**
 * `count` servers on one database, started at once as a fleet starts. Like `startTestServer`,
 * `config: undefined` asks for the default project instead of `TEST_CONFIG`.
 */
export function startInstances(
  count: number,
  databaseUrl: string,
  options: TestServerOptions = {},
): Promise<FlagwireServer[]> {
  const { config, ...rest } = { config: TEST_CONFIG, ...options };
  return Promise.all(
    Array.from({ length: count }, () =>
      startServer({ port: 0, logger: false, ...(config ? { config } : {}), ...rest, databaseUrl }),
    ),
  );
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const { config, ...rest } = { config: TEST_CONFIG, ...options };
  const storeNamed =
    rest.dataDir !== undefined || rest.memory !== undefined || rest.databaseUrl !== undefined;
  if (TEST_STORE === 'postgres' && !storeNamed) rest.databaseUrl = await freshDatabase();
  const server = await startServer({ port: 0, logger: false, ...(config ? { config } : {}), ...rest });
  const base = `${server.url}/api/v1`;
  const fullKey = server.keys.find((k) => k.access === 'full')!.key;
  const readKey = server.keys.find((k) => k.access === 'read-only')?.key ?? '';
  return {
    server,
    base,
    fullKey,
    readKey,
    api(method, path, body, key = fullKey) {
      const headers: Record<string, string> = { authorization: `Bearer ${key}` };
      const init: RequestInit = { method, headers };
      if (body !== undefined) {
        headers['content-type'] = 'application/json';
        init.body = typeof body === 'string' ? body : JSON.stringify(body);
      }
      return fetch(`${base}${path}`, init);
    },
    close: () => server.close(),
  };
}
