/**
 * The `--config` file (`docs/protocol.md` §7): projects, environments, keys and seed
 * flags. Validation is strict and every message names the path of the bad value, so a
 * typo is an error at start-up, not a silently missing key.
 */
import { API_KEY_PATTERN, FLAG_KEY_PATTERN } from '../src/core/limits.js';
import type { CreateFlagInput } from '../src/core/types.js';
import { validateCreateFlag } from '../src/core/validation.js';
import type { Access } from './state/kernel/model.js';

/** A seed flag: a `POST /flags` body (targeting included), plus whether it starts enabled (default false). */
export type ConfigFlag = CreateFlagInput & { enabled?: boolean };

export interface ConfigApiKey {
  /** `fw_live_` + 32 characters of `[A-Za-z0-9]`. */
  key: string;
  access: Access;
}

export interface ConfigEnvironment {
  key: string;
  apiKeys?: ConfigApiKey[];
  flags?: ConfigFlag[];
}

export interface ConfigProject {
  key: string;
  environments: ConfigEnvironment[];
}

/** The reference server's configuration: what `--config FILE` holds. */
export interface FlagwireConfig {
  projects: ConfigProject[];
  /** The dashboard's admin token (`docs/protocol.md` §10.2); `--admin-token` wins over it. */
  adminToken?: string;
}

/**
 * What an admin token may be (`docs/protocol.md` §10.2), wherever it comes from: the config
 * file, `startServer({ adminToken })` or the command line.
 */
export const ADMIN_TOKEN_RULE = /^[\x21-\x7e]{16,256}$/;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly code = 'INVALID_CONFIG';
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function checkFields(value: Record<string, unknown>, allowed: string[], path: string): void {
  for (const name of Object.keys(value)) {
    if (!allowed.includes(name))
      throw new ConfigError(`${path}: unknown field "${name}" (allowed: ${allowed.join(', ')})`);
  }
}

function checkName(value: unknown, path: string): string {
  if (
    typeof value !== 'string' ||
    value.length === 0 ||
    value.length > 128 ||
    !FLAG_KEY_PATTERN.test(value)
  ) {
    throw new ConfigError(
      `${path}: must be 1 to 128 letters, digits, ".", "_" or "-", starting with a letter or digit`,
    );
  }
  return value;
}

function arrayAt(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) throw new ConfigError(`${path}: must be an array`);
  return value;
}

/** Validates a parsed config; throws `ConfigError` naming the first problem. */
export function parseConfig(raw: unknown): FlagwireConfig {
  if (!isObject(raw)) throw new ConfigError('config: must be a JSON object with "projects"');
  checkFields(raw, ['projects', 'adminToken'], 'config');
  if (
    raw.adminToken !== undefined &&
    (typeof raw.adminToken !== 'string' || !ADMIN_TOKEN_RULE.test(raw.adminToken))
  ) {
    throw new ConfigError('adminToken: must be 16 to 256 printable characters without spaces');
  }
  const seenKeys = new Set<string>();
  const projectKeys = new Set<string>();
  const projects = arrayAt(raw.projects, 'projects').map((p, pi): ConfigProject => {
    const path = `projects[${pi}]`;
    if (!isObject(p)) throw new ConfigError(`${path}: must be an object`);
    checkFields(p, ['key', 'environments'], path);
    const key = checkName(p.key, `${path}.key`);
    if (projectKeys.has(key)) throw new ConfigError(`${path}.key: project "${key}" is listed twice`);
    projectKeys.add(key);
    const envKeys = new Set<string>();
    const environments = arrayAt(p.environments, `${path}.environments`).map((e, ei): ConfigEnvironment => {
      const epath = `${path}.environments[${ei}]`;
      if (!isObject(e)) throw new ConfigError(`${epath}: must be an object`);
      checkFields(e, ['key', 'apiKeys', 'flags'], epath);
      const envKey = checkName(e.key, `${epath}.key`);
      if (envKeys.has(envKey)) throw new ConfigError(`${epath}.key: environment "${envKey}" is listed twice`);
      envKeys.add(envKey);
      const apiKeys = arrayAt(e.apiKeys ?? [], `${epath}.apiKeys`).map((k, ki): ConfigApiKey => {
        const kpath = `${epath}.apiKeys[${ki}]`;
        if (!isObject(k)) throw new ConfigError(`${kpath}: must be an object`);
        checkFields(k, ['key', 'access'], kpath);
        if (typeof k.key !== 'string' || !API_KEY_PATTERN.test(k.key)) {
          throw new ConfigError(`${kpath}.key: must be "fw_live_" followed by 32 characters of [A-Za-z0-9]`);
        }
        if (seenKeys.has(k.key)) throw new ConfigError(`${kpath}.key: this API key is used twice`);
        seenKeys.add(k.key);
        if (k.access !== 'full' && k.access !== 'read-only' && k.access !== 'client') {
          throw new ConfigError(`${kpath}.access: must be "full", "read-only" or "client"`);
        }
        return { key: k.key, access: k.access };
      });
      const flagKeys = new Set<string>();
      const flags = arrayAt(e.flags ?? [], `${epath}.flags`).map((f, fi): ConfigFlag => {
        const fpath = `${epath}.flags[${fi}]`;
        const checked = validateCreateFlag(f);
        if (!checked.ok) throw new ConfigError(`${fpath}: ${checked.message}`);
        if (flagKeys.has(checked.value.key))
          throw new ConfigError(`${fpath}.key: flag "${checked.value.key}" is listed twice`);
        flagKeys.add(checked.value.key);
        const flag: ConfigFlag = { ...checked.value };
        if (isObject(f) && typeof f.enabled === 'boolean') flag.enabled = f.enabled;
        return flag;
      });
      return { key: envKey, apiKeys, flags };
    });
    return { key, environments };
  });
  return typeof raw.adminToken === 'string' ? { projects, adminToken: raw.adminToken } : { projects };
}
