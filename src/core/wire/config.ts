/**
 * The types of `../schemas/config.ts`, written by `npm run wire-types`: do not edit; change
 * the schema and run it again.
 */

/** An API key of an environment. */
export interface ConfigApiKey {
  /** `fw_live_` and 32 characters of `[A-Za-z0-9]`. */
  key: string;
  /** What the key opens (`docs/protocol.md` §2). */
  access: 'full' | 'read-only' | 'client';
  /** Its writes skip the environment's approvals (`docs/protocol.md` §2); a `full` key only. Default false. */
  bypassApprovals?: boolean;
}

/** An environment of a project. */
export interface ConfigEnvironment {
  key: string;
  apiKeys?: ConfigApiKey[];
  /** How many approvals a change of its flags and segments needs (`docs/protocol.md` §10.3), set at every start; left out, the admin API sets it. */
  approvals?: number;
  /** Seed flags: `POST /flags` bodies (targeting included), plus `enabled` (default false); created when missing. */
  flags?: Record<string, unknown>[];
}

/** The reference server's configuration: what `--config FILE` holds. */
export interface ConfigFile {
  projects: ConfigProject[];
  /** The dashboard's admin token (`docs/protocol.md` §10.2); `--admin-token` wins over it. */
  adminToken?: string;
}

/** A project and its environments. */
export interface ConfigProject {
  key: string;
  environments: ConfigEnvironment[];
}
