/**
 * The `--config` file (`docs/protocol.md` §7): projects, environments, keys and seed
 * flags. Validation is strict and every message names the path of the bad value, so a
 * typo is an error at start-up, not a silently missing key.
 */
import { ADMIN_TOKEN_PATTERN } from '../src/core/limits.js';
import { checkSchema } from '../src/core/schemas/check.js';
import { ConfigFile } from '../src/core/schemas/config.js';
import type { CreateFlagInput } from '../src/core/types.js';
import { validateCreateFlag } from '../src/core/validation.js';
import type * as Wire from '../src/core/wire/config.js';

/** A seed flag: a `POST /flags` body (targeting included), plus whether it starts enabled (default false). */
export type ConfigFlag = CreateFlagInput & { enabled?: boolean };

// The file's shape is its schema's (`src/core/schemas/config.ts`); seed flags are `POST /flags` bodies.
export type ConfigApiKey = Wire.ConfigApiKey;

export interface ConfigEnvironment extends Omit<Wire.ConfigEnvironment, 'flags'> {
  flags?: ConfigFlag[];
}

export interface ConfigProject extends Omit<Wire.ConfigProject, 'environments'> {
  environments: ConfigEnvironment[];
}

/** The reference server's configuration: what `--config FILE` holds. */
export interface FlagwireConfig extends Omit<Wire.ConfigFile, 'projects'> {
  projects: ConfigProject[];
}

/**
 * What an admin token may be (`docs/protocol.md` §10.2), wherever it comes from: the config
 * file, `startServer({ adminToken })` or the command line.
 */
export const ADMIN_TOKEN_RULE = ADMIN_TOKEN_PATTERN;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly code = 'INVALID_CONFIG';
}

/** Validates a parsed config; throws `ConfigError` naming the first problem. */
export function parseConfig(raw: unknown): FlagwireConfig {
  const checked = checkSchema(ConfigFile, raw, 'path', 'config');
  if (!checked.ok) throw new ConfigError(checked.message);
  const config = checked.value;
  const seenKeys = new Set<string>();
  const projectKeys = new Set<string>();
  const projects = config.projects.map((p, pi): ConfigProject => {
    const path = `projects[${pi}]`;
    if (projectKeys.has(p.key)) throw new ConfigError(`${path}.key: project "${p.key}" is listed twice`);
    projectKeys.add(p.key);
    const envKeys = new Set<string>();
    const environments = p.environments.map((e, ei): ConfigEnvironment => {
      const epath = `${path}.environments[${ei}]`;
      if (envKeys.has(e.key)) throw new ConfigError(`${epath}.key: environment "${e.key}" is listed twice`);
      envKeys.add(e.key);
      const apiKeys = (e.apiKeys ?? []).map((k, ki): ConfigApiKey => {
        if (seenKeys.has(k.key))
          throw new ConfigError(`${epath}.apiKeys[${ki}].key: this API key is used twice`);
        seenKeys.add(k.key);
        if (k.bypassApprovals === true && k.access !== 'full')
          throw new ConfigError(
            `${epath}.apiKeys[${ki}].bypassApprovals: only a key of "full" access writes, so only it may bypass approvals`,
          );
        return { key: k.key, access: k.access, ...(k.bypassApprovals === true && { bypassApprovals: true }) };
      });
      const flagKeys = new Set<string>();
      const flags = (e.flags ?? []).map((f, fi): ConfigFlag => {
        const fpath = `${epath}.flags[${fi}]`;
        const seed = validateCreateFlag(f);
        if (!seed.ok) throw new ConfigError(`${fpath}: ${seed.message}`);
        if (flagKeys.has(seed.value.key))
          throw new ConfigError(`${fpath}.key: flag "${seed.value.key}" is listed twice`);
        flagKeys.add(seed.value.key);
        const flag: ConfigFlag = { ...seed.value };
        if (typeof f.enabled === 'boolean') flag.enabled = f.enabled;
        return flag;
      });
      return { key: e.key, apiKeys, flags, ...(e.approvals !== undefined && { approvals: e.approvals }) };
    });
    return { key: p.key, environments };
  });
  return config.adminToken !== undefined ? { projects, adminToken: config.adminToken } : { projects };
}
