/**
 * Environments whose stored data could not be restored at start-up (`docs/protocol.md` §7.3):
 * an unreadable snapshot line, a snapshot piece of the wrong shape, a history or an entry that
 * cannot be applied. (A flag the evaluator cannot compile is one flag's error, not the
 * environment's: `compileFlag` marks it malformed.) Such an environment is kept out of
 * memory, so nothing serves, evaluates or snapshots it; a stand-in keeps its name and keys, so
 * its key holders are answered `503 UNAVAILABLE` (SDKs keep their last-known values and retry)
 * and not `401`. The other environments serve. Its stored data stays as it was: a snapshot of
 * the whole state waits (the journal keeps every entry) and its own scope is never compacted,
 * so the next start, on a release that reads it, restores it whole.
 */
import { isObject } from '../../../src/core/is-object.js';
import { ApiError } from '../../errors.js';

import { nameFromId, nameOf, renamedAs } from './env-names.js';
import type { ApiKeyGrant, Environment, MemoryState, StoredApiKey } from './model.js';

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** Keys of a piece that look like what they should be; the rest are left out. */
function keysOf(piece: Record<string, unknown>): { generated: ApiKeyGrant[]; stored: StoredApiKey[] } {
  const list = (value: unknown) => (Array.isArray(value) ? value.filter((v) => isObject(v)) : []);
  return {
    generated: list(piece.keys).filter(
      (k) => typeof k.key === 'string' && typeof k.access === 'string',
    ) as unknown as ApiKeyGrant[],
    stored: list(piece.apiKeys).filter(
      (k) => typeof k.digest === 'string' && typeof k.id === 'string' && typeof k.access === 'string',
    ) as unknown as StoredApiKey[],
  };
}

/**
 * Records environment `id` as not restored, for `reason`, with what can still be read of it
 * (`piece`: its snapshot line, or the environment memory held before the failure): its name,
 * epoch and keys. Takes it out of memory. Answers the stand-in.
 */
export function markDamaged(db: MemoryState, id: string, reason: string, piece?: unknown): Environment {
  const known = db.damaged.get(id);
  if (known) return known;
  const from = isObject(piece) ? piece : {};
  const held = db.get(id);
  const named = nameFromId(id);
  const keys = keysOf(from);
  const stub: Environment = {
    id,
    project: held?.project ?? text(from.project) ?? named.project,
    environment: held?.environment ?? text(from.environment) ?? named.environment,
    epoch: held?.epoch ?? text(from.epoch) ?? '',
    revision: 0,
    flags: new Map(),
    segments: new Map(),
    webhooks: new Map(),
    deliveries: new Map(),
    generatedKeys: held?.generatedKeys ?? keys.generated,
    source: held?.source ?? (text(from.source) as Environment['source'] | undefined) ?? 'default',
    createdAt: held?.createdAt ?? text(from.createdAt) ?? new Date(0).toISOString(),
    apiKeys: held?.apiKeys ?? keys.stored,
    history: [],
    damaged: reason,
  };
  const renamed = renamedAs(db, stub);
  if (renamed) Object.assign(stub, { project: renamed.project, environment: renamed.environment });
  db.delete(id);
  db.damaged.set(id, stub);
  return stub;
}

/** The environment not restored that is called `project/environment`, if there is one. */
export function damagedNamed(db: MemoryState, project: string, environment: string): Environment | undefined {
  for (const env of db.damaged.values())
    if (env.project === project && env.environment === environment) return env;
  return undefined;
}

/** What the log says of a environment not restored: which one and why. */
export function damagedLine(env: Environment): string {
  return (
    `environment ${nameOf(env)} (${env.id}) could not be restored: ${env.damaged}. ` +
    'Its requests are answered 503 UNAVAILABLE and its stored data is kept as it is; ' +
    'the other environments serve.'
  );
}

/** `503 UNAVAILABLE` for a request to `env` if it was not restored; `undefined` if it serves. */
export function notRestored(env: Environment): ApiError | undefined {
  if (env.damaged === undefined) return undefined;
  return new ApiError(
    503,
    'UNAVAILABLE',
    `environment ${nameOf(env)} could not be restored when the server started; its data is kept ` +
      'and the server log says why. The other environments serve.',
    { 'retry-after': '30' },
  );
}
