/**
 * The reference server's `--config` file (`docs/protocol.md` §7): projects, environments, keys
 * and seed flags. Its JSON Schema is this module's `FlagwireConfig`; what a schema cannot say
 * (a key listed twice, a seed flag's own rules) the server checks in code (`server/config.ts`).
 */
import { Type } from '@sinclair/typebox';
import { ADMIN_TOKEN_PATTERN, API_KEY_PATTERN, FLAG_KEY_MAX_LENGTH, FLAG_KEY_PATTERN } from '../limits.js';

const NAME = 'must be 1 to 128 letters, digits, ".", "_" or "-", starting with a letter or digit';

/** A project's or an environment's key: the flag key rules. */
const Name = Type.String({
  minLength: 1,
  maxLength: FLAG_KEY_MAX_LENGTH,
  pattern: FLAG_KEY_PATTERN.source,
  errorMessage: NAME,
});

export const ConfigApiKey = Type.Object(
  {
    key: Type.String({
      pattern: API_KEY_PATTERN.source,
      errorMessage: 'must be "fw_live_" followed by 32 characters of [A-Za-z0-9]',
      description: '`fw_live_` and 32 characters of `[A-Za-z0-9]`.',
    }),
    access: Type.Union([Type.Literal('full'), Type.Literal('read-only'), Type.Literal('client')], {
      errorMessage: 'must be "full", "read-only" or "client"',
      description: 'What the key opens (`docs/protocol.md` §2).',
    }),
    bypassApprovals: Type.Optional(
      Type.Boolean({
        errorMessage: 'must be true or false',
        description:
          "Its writes skip the environment's approvals (`docs/protocol.md` §2); a `full` key only. Default false.",
      }),
    ),
  },
  { $id: 'ConfigApiKey', additionalProperties: false, description: 'An API key of an environment.' },
);

export const ConfigEnvironment = Type.Object(
  {
    key: Name,
    apiKeys: Type.Optional(Type.Array(ConfigApiKey)),
    approvals: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 10,
        errorMessage: 'must be an integer from 0 (off) to 10',
        description:
          'How many approvals a change of its flags and segments needs (`docs/protocol.md` §10.3), set at every start; left out, the admin API sets it.',
      }),
    ),
    flags: Type.Optional(
      Type.Array(Type.Record(Type.String(), Type.Unknown()), {
        description:
          'Seed flags: `POST /flags` bodies (targeting included), plus `enabled` (default false); created when missing.',
      }),
    ),
  },
  { $id: 'ConfigEnvironment', additionalProperties: false, description: 'An environment of a project.' },
);

export const ConfigProject = Type.Object(
  { key: Name, environments: Type.Array(ConfigEnvironment) },
  { $id: 'ConfigProject', additionalProperties: false, description: 'A project and its environments.' },
);

export const ConfigFile = Type.Object(
  {
    projects: Type.Array(ConfigProject),
    adminToken: Type.Optional(
      Type.String({
        pattern: ADMIN_TOKEN_PATTERN.source,
        errorMessage: 'must be 16 to 256 printable characters without spaces',
        description: "The dashboard's admin token (`docs/protocol.md` §10.2); `--admin-token` wins over it.",
      }),
    ),
  },
  {
    $id: 'ConfigFile',
    additionalProperties: false,
    description: "The reference server's configuration: what `--config FILE` holds.",
  },
);
