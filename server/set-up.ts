/**
 * What `startServer` does with the state before it listens (`docs/protocol.md` §7): open the
 * storage the options name, set up the environments and keys of the config (or the default
 * project), seed the config's flags, and make the secrets that must exist once.
 */
import { randomBytes } from 'node:crypto';
import type { ResolvedServerOptions } from './options.js';
import { grantsOf } from './state/admin/admin-service.js';
import type { Grant } from './state/admin/key-ring.js';
import { type AdminOp, approvalsOps } from './state/admin/ops.js';
import type { Op } from './state/domains.js';
import type { FlagService } from './state/flags/flag-service.js';
import { CONFIG_ACTOR } from './state/kernel/actors.js';
import { damagedNamed } from './state/kernel/damaged.js';
import { findByName } from './state/kernel/env-names.js';
import { ensureEnvironment, setEnvironmentSource } from './state/kernel/environments.js';
import type { Ledger } from './state/kernel/ledger.js';
import type { Environment, MemoryState } from './state/kernel/model.js';
import type { KernelOp } from './state/kernel/ops.js';
import { createFileStorage } from './store/file-storage.js';
import { createMemoryStorage } from './store/memory-storage.js';
import { createPostgresStorage } from './store/postgres/storage.js';
import type { Storage } from './store/storage.js';

export const DEFAULT_PROJECT = 'default';
export const DEFAULT_ENVIRONMENT = 'development';

/**
 * The storage the options name: Postgres (`databaseUrl`), the journal (`dataDir`), else memory.
 * Only Postgres imports its driver; rejects with `DatabaseDriverMissingError` when `pg` is not
 * installed.
 */
export async function openStorage(resolved: ResolvedServerOptions): Promise<Storage<Op>> {
  const warn = (message: string) => resolved.logger.warn(message);
  if (resolved.databaseUrl)
    return createPostgresStorage({
      url: resolved.databaseUrl,
      connectTimeoutMs: resolved.databaseConnectTimeoutMs,
      poolSize: resolved.databasePoolSize,
      catchUpIntervalMs: resolved.databaseCatchUpIntervalMs,
      compactAfterEntries: resolved.compactAfterEntries,
      warn,
    });
  if (resolved.dataDir)
    return createFileStorage({
      dir: resolved.dataDir,
      compactAfterEntries: resolved.compactAfterEntries,
      compactAfterBytes: resolved.compactAfterBytes,
      warn,
    });
  return createMemoryStorage();
}

export async function setUpEnvironments(
  ledger: Ledger<KernelOp | AdminOp>,
  db: MemoryState,
  options: ResolvedServerOptions,
): Promise<{ envs: Environment[]; grants: Array<{ digest: Buffer; grant: Grant }> }> {
  const envs: Environment[] = [];
  const grants: Array<{ digest: Buffer; grant: Grant }> = [];
  if (!options.config) {
    const damaged = damagedNamed(db, DEFAULT_PROJECT, DEFAULT_ENVIRONMENT);
    const env = damaged ?? (await ensureEnvironment(db, ledger, DEFAULT_PROJECT, DEFAULT_ENVIRONMENT, true));
    if (!damaged) envs.push(env);
    grants.push(...grantsOf(env, []));
  } else {
    for (const project of options.config.projects) {
      for (const environment of project.environments) {
        // Not restored (`state/kernel/damaged.ts`): its keys answer 503; nothing is written to it.
        const damaged = damagedNamed(db, project.key, environment.key);
        if (damaged) {
          grants.push(...grantsOf(damaged, environment.apiKeys ?? []));
          continue;
        }
        const env = await ensureEnvironment(db, ledger, project.key, environment.key, false);
        // The config names it now (it was the dashboard's, or the default): it is authoritative.
        if (env.source !== 'config') await setEnvironmentSource(ledger, env, 'config');
        // Approvals the config sets are its own, at every start (`docs/protocol.md` §10.3).
        if (environment.approvals !== undefined) await configApprovals(ledger, env, environment.approvals);
        envs.push(env);
        grants.push(...grantsOf(env, environment.apiKeys ?? []));
      }
    }
  }
  // Environments created in the dashboard are served whatever the config says (§10.3).
  for (const env of db.values()) {
    if (env.source === 'dashboard' && !envs.includes(env)) {
      envs.push(env);
      grants.push(...grantsOf(env, []));
    }
  }
  for (const env of db.damaged.values()) if (env.source === 'dashboard') grants.push(...grantsOf(env, []));
  return { envs, grants };
}

export async function seedFlags(service: FlagService, envs: Environment[], options: ResolvedServerOptions) {
  if (!options.config) return;
  for (const project of options.config.projects) {
    for (const environment of project.environments) {
      const env = findByName(envs, project.key, environment.key);
      // Not restored at start-up (`state/kernel/damaged.ts`): its stored flags are kept as they are.
      if (!env) continue;
      for (const flag of environment.flags ?? [])
        await service.seedFlag(env, { ...flag, enabled: flag.enabled ?? false });
    }
  }
}

/** Sets `env`'s approvals as the config file says, credited to it (nothing when they are so already). */
async function configApprovals(ledger: Ledger<AdminOp>, env: Environment, approvals: number): Promise<void> {
  await ledger.commit(env.id, () => approvalsOps(env, approvals, CONFIG_ACTOR));
}

/** Whether the config file sets the approvals of `env` (then the admin API does not: `CONFIG_MANAGED`). */
export function approvalsFromConfig(options: ResolvedServerOptions, env: Environment): boolean {
  const named = options.config?.projects
    .find((p) => p.key === env.project)
    ?.environments.find((e) => e.key === env.environment);
  return env.source === 'config' && named?.approvals !== undefined;
}

/** The secret of OFREP stream tokens: the stored one, else a new one, stored. */
export async function streamSecret(db: MemoryState, ledger: Ledger<AdminOp>): Promise<string> {
  if (db.streamSecret !== undefined) return db.streamSecret;
  // Planned, so instances starting together on one database agree on one secret.
  await ledger.commit('', () =>
    db.streamSecret === undefined
      ? [{ t: 'stream-secret', secret: randomBytes(32).toString('base64url') }]
      : [],
  );
  return db.streamSecret!;
}
