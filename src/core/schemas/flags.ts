/** Flags as the management API shows and takes them (`docs/protocol.md` §3.1, §12.1). */
import { Type } from '@sinclair/typebox';
import { DESCRIPTION_MAX_LENGTH, FLAG_KEY_MAX_LENGTH, FLAG_KEY_PATTERN } from '../limits.js';
import { TARGETING_LIMITS } from '../targeting/validate-shape.js';
import { Nullable } from './common.js';
import { Prerequisite, Rule, RuleInput, Serve, Target, Variants } from './targeting.js';

export const FlagType = Type.Union([Type.Literal('boolean'), Type.Literal('rollout')], {
  $id: 'FlagType',
  description: 'The flags `isEnabled` evaluates: on or off, for everyone or for a percentage.',
});

export const ValueFlagType = Type.Union(
  [Type.Literal('string'), Type.Literal('number'), Type.Literal('json')],
  {
    $id: 'ValueFlagType',
    description: "Flags that serve one of their variants' values (`docs/protocol.md` §12).",
  },
);

export const AnyFlagType = Type.Union(
  [
    Type.Literal('boolean'),
    Type.Literal('rollout'),
    Type.Literal('string'),
    Type.Literal('number'),
    Type.Literal('json'),
  ],
  { $id: 'AnyFlagType', description: 'Every kind of flag.' },
);

const FlagKey = Type.String({
  minLength: 1,
  maxLength: FLAG_KEY_MAX_LENGTH,
  pattern: FLAG_KEY_PATTERN.source,
  description: 'Unique in its environment; never changes.',
  errorMessage: {
    pattern: 'may contain only letters, digits, ".", "_" and "-", and must start with a letter or digit',
  },
});

/** A flag's description; `description` says what it means where it is used. */
const Description = (description?: string) =>
  Nullable(Type.String({ maxLength: DESCRIPTION_MAX_LENGTH }), {
    errorMessage: { anyOf: `must be a string of at most ${DESCRIPTION_MAX_LENGTH} characters, or null` },
    ...(description && { description }),
  });

/** A rollout's percentage; `description` says what it means where it is used. */
const Percentage = (
  description = 'The share of users the flag is on for, 0 to 100; only on `rollout` flags.',
) =>
  Type.Integer({ minimum: 0, maximum: 100, description, errorMessage: 'must be an integer from 0 to 100' });

/** The targeting a flag of any type may carry, as the representation shows it (only what is set). */
const shownTargeting = {
  targets: Type.Optional(Type.Array(Target, { maxItems: TARGETING_LIMITS.variants })),
  rules: Type.Optional(Type.Array(Rule, { maxItems: TARGETING_LIMITS.rules })),
  prerequisites: Type.Optional(Type.Array(Prerequisite, { maxItems: TARGETING_LIMITS.prerequisites })),
  salt: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
};

export const BooleanFlag = Type.Object(
  {
    key: FlagKey,
    type: Type.Literal('boolean'),
    enabled: Type.Boolean(),
    description: Nullable(Type.String()),
    /** Only when it is not `{"variant": "on"}`. */
    fallthrough: Type.Optional(Serve),
    ...shownTargeting,
  },
  {
    $id: 'BooleanFlag',
    description: 'Management representation of a `boolean` flag (`docs/protocol.md` §3.1).',
  },
);

export const RolloutFlag = Type.Object(
  {
    key: FlagKey,
    type: Type.Literal('rollout'),
    enabled: Type.Boolean(),
    percentage: Percentage(),
    description: Nullable(Type.String()),
    ...shownTargeting,
  },
  {
    $id: 'RolloutFlag',
    description: 'Management representation of a `rollout` flag: a boolean flag plus `percentage` (0..100).',
  },
);

export const ValueFlag = Type.Object(
  {
    key: FlagKey,
    type: ValueFlagType,
    enabled: Type.Boolean(),
    description: Nullable(Type.String()),
    variants: Variants,
    offVariant: Type.String(),
    fallthrough: Serve,
    ...shownTargeting,
  },
  { $id: 'ValueFlag', description: 'Management representation of a `string`, `number` or `json` flag.' },
);

export const Flag = Type.Union([BooleanFlag, RolloutFlag, ValueFlag], {
  $id: 'Flag',
  description: 'A flag as the management API returns it.',
});

const ClearedBy = (what: string) => `${what}; \`null\` or \`[]\` clears it.`;

const SALT = 'must be a non-empty string of at most 256 characters, or null';

/** The targeting fields a body may set (`docs/protocol.md` §12.1). */
const targetingInput = {
  /**
   * Required on creating a `string`, `number` or `json` flag; a `PATCH` replaces the whole map
   * (a variant still in use cannot be removed: 409).
   */
  variants: Type.Optional(Variants),
  offVariant: Type.Optional(Type.String({ description: 'Default: the first variant.' })),
  fallthrough: Type.Optional(Serve),
  targets: Type.Optional(
    Nullable(Type.Array(Target, { maxItems: TARGETING_LIMITS.variants }), {
      description: ClearedBy('Replaced whole'),
    }),
  ),
  rules: Type.Optional(
    Nullable(Type.Array(RuleInput, { maxItems: TARGETING_LIMITS.rules }), {
      description: ClearedBy('Replaced whole'),
    }),
  ),
  prerequisites: Type.Optional(
    Nullable(Type.Array(Prerequisite, { maxItems: TARGETING_LIMITS.prerequisites }), {
      description: ClearedBy('Replaced whole'),
    }),
  ),
  salt: Type.Optional(
    Nullable(Type.String({ minLength: 1, maxLength: 256, errorMessage: SALT }), {
      description: '`null` clears it.',
      errorMessage: { anyOf: SALT },
    }),
  ),
};

export const TargetingInput = Type.Object(targetingInput, {
  $id: 'TargetingInput',
  additionalProperties: false,
  description: 'The targeting fields a `POST` or `PATCH /flags` body may set (`null` or `[]` clears a list).',
});

export const CreateFlagInput = Type.Object(
  {
    key: FlagKey,
    type: AnyFlagType,
    description: Type.Optional(Description()),
    percentage: Type.Optional(Percentage('Only on `rollout` flags; defaults to 0.')),
    enabled: Type.Optional(
      Type.Boolean({ description: 'Accepted and ignored: a new flag is always disabled.' }),
    ),
    ...targetingInput,
  },
  { $id: 'CreateFlagInput', additionalProperties: false, description: 'Body of `POST /flags`.' },
);

export const UpdateFlagInput = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    percentage: Type.Optional(Percentage('Only on `rollout` flags.')),
    description: Type.Optional(Description('`null` clears the description.')),
    ...targetingInput,
  },
  {
    $id: 'UpdateFlagInput',
    additionalProperties: false,
    'x-fixed': ['key', 'type'],
    description: 'Body of `PATCH /flags/:key`; every field optional.',
  },
);
