/** The key ring's grants of an environment's stored keys (`docs/protocol.md` §10.3). */

import { apiKeyActor } from '../kernel/actors.js';
import type { Access, Environment, StoredApiKey } from '../kernel/model.js';
import { type Grant, grantOfKey } from './key-ring.js';

/** The grant of a key created in the dashboard. */
export function storedGrant(env: Environment, stored: StoredApiKey): Grant {
  return {
    env,
    access: stored.access,
    id: stored.id,
    source: 'dashboard',
    actor: apiKeyActor(stored.id, stored.hint, stored.name),
    name: stored.name,
    createdAt: stored.createdAt,
    revoked: false,
    bypassApprovals: stored.bypassApprovals === true,
  };
}

/** Every key an environment's grants come from, for the key ring at start-up. */
export function grantsOf(
  env: Environment,
  configKeys: ReadonlyArray<{ key: string; access: Access; bypassApprovals?: boolean }>,
): Array<{ digest: Buffer; grant: Grant }> {
  const out = configKeys.map(({ key, access, bypassApprovals }) =>
    grantOfKey(env, key, access, 'config', bypassApprovals === true),
  );
  for (const { key, access } of env.generatedKeys) out.push(grantOfKey(env, key, access, 'generated'));
  for (const stored of env.apiKeys)
    out.push({ digest: Buffer.from(stored.digest, 'hex'), grant: storedGrant(env, stored) });
  return out;
}
