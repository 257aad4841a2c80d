/**
 * Environments as the server's set-up makes them (`docs/protocol.md` §7): created once, with a
 * fresh epoch and, for the default project, generated keys; their source recorded. Each is an
 * `env` op through the ledger, decided under the environment's lock.
 */
import { findByName, idFor } from './env-names.js';
import { newApiKey, newEpoch } from './ids.js';
import { decide, type Ledger } from './ledger.js';
import type { ApiKeyGrant, Environment, MemoryState, Source } from './model.js';
import type { KernelOp } from './ops.js';

/**
 * The environment `project/environment`, created (with a fresh epoch) if the store
 * has none. `generateKeys` gives a new environment one full and one read-only key.
 */
export async function ensureEnvironment(
  db: MemoryState,
  ledger: Ledger<KernelOp>,
  project: string,
  environment: string,
  generateKeys: boolean,
  source: Source = generateKeys ? 'default' : 'config',
): Promise<Environment> {
  const existing = findByName(db.values(), project, environment);
  if (existing) return existing;
  const id = idFor(db, project, environment);
  await decide<undefined, KernelOp>(ledger, id, () => {
    if (db.has(id)) return { ops: [], result: undefined };
    const keys: ApiKeyGrant[] = generateKeys
      ? [
          { key: newApiKey(), access: 'full' },
          { key: newApiKey(), access: 'read-only' },
        ]
      : [];
    const createdAt = new Date().toISOString();
    const epoch = newEpoch();
    return {
      ops: [{ t: 'env', id, project, environment, epoch, keys, source, createdAt }],
      result: undefined,
    };
  });
  return findByName(db.values(), project, environment) ?? db.get(id)!;
}

/** Records where an environment now comes from (the dashboard took it back, or the config names it). */
export async function setEnvironmentSource(
  ledger: Ledger<KernelOp>,
  env: Environment,
  source: Source,
): Promise<void> {
  await decide<undefined, KernelOp>(ledger, env.id, () => {
    if (env.source === source) return { ops: [], result: undefined };
    const { id, project, environment, epoch, generatedKeys: keys } = env;
    return { ops: [{ t: 'env', id, project, environment, epoch, keys, source }], result: undefined };
  });
}
