/**
 * Targeting on the wire (`docs/protocol.md` §12): clauses, rules, what a rule or the fallthrough
 * serves, individual targets, prerequisites and segment rules. The limits are
 * `TARGETING_LIMITS` (§12.5). What needs the flag or the environment (a variant the flag has,
 * a segment that exists, an operator's values) is the targeting validators' (`../targeting/validate.ts`).
 */
import { type TObject, type TProperties, Type } from '@sinclair/typebox';
import { CLAUSE_OPERATORS } from '../targeting/types.js';
import { NAME_PATTERN, TARGETING_LIMITS } from '../targeting/validate-shape.js';
import { Json } from './common.js';

/** A variant's or a rule id's name: `^[A-Za-z0-9_.-]{1,64}$`. */
const Name = (description: string) => Type.String({ pattern: NAME_PATTERN.source, description });

const ATTRIBUTE =
  'A top-level attribute, `key`, `$now`, or a JSON pointer `/a/b` (escaping only `~0` and `~1`).';
const Attribute = (description = ATTRIBUTE) => Type.String({ minLength: 1, maxLength: 256, description });

export const ClauseOperator = Type.Union(
  CLAUSE_OPERATORS.map((op) => Type.Literal(op)),
  { $id: 'ClauseOperator', description: 'The operators of a clause (`docs/protocol.md` §12.2).' },
);

export const Clause = Type.Object(
  {
    attribute: Type.Optional(Attribute(`${ATTRIBUTE} Absent for \`inSegment\`.`)),
    op: ClauseOperator,
    values: Type.Array(Type.Unknown(), {
      maxItems: TARGETING_LIMITS.values,
      description:
        "The operands, of the operator's kind (§12.2): none for `exists` (which may leave it out), segment keys for `inSegment`.",
    }),
    negate: Type.Optional(
      Type.Boolean({ description: 'Inverts the whole clause, a missing attribute included.' }),
    ),
    caseInsensitive: Type.Optional(
      Type.Boolean({ description: 'Lowercases both sides for `in`, the string operators and `matches`.' }),
    ),
  },
  {
    $id: 'Clause',
    additionalProperties: false,
    description: 'One condition on a user: `attribute` `op` any of `values`, maybe negated as a whole.',
  },
);

export const SplitSlice = Type.Object(
  {
    variant: Type.Union([Type.String(), Type.Null()], {
      description: 'The variant, or `null` (only in rules): this rule does not serve the user.',
    }),
    weight: Type.Integer({ minimum: 0, description: 'Thousandths of a percent.' }),
  },
  {
    $id: 'SplitSlice',
    additionalProperties: false,
    description: 'One slice of a split: `variant` for `weight` thousandths of a percent.',
  },
);

export const Serve = Type.Union(
  [
    Type.Object({ variant: Type.String() }, { additionalProperties: false }),
    Type.Object(
      {
        split: Type.Array(SplitSlice, {
          minItems: 1,
          maxItems: TARGETING_LIMITS.variants + 1,
          description: 'Weights sum to exactly 100,000 (thousandths of a percent).',
        }),
        bucketBy: Type.Optional(
          Type.Union([Attribute(), Type.Array(Attribute(), { minItems: 1, maxItems: 10 })], {
            description: 'The attribute(s) whose first present value is bucketed (default `key`).',
          }),
        ),
        salt: Type.Optional(
          Type.String({
            maxLength: 256,
            description: "Hashed before the bucket value (default: the flag's `salt`, else its key).",
          }),
        ),
      },
      { additionalProperties: false },
    ),
  ],
  {
    $id: 'Serve',
    description:
      'What a rule or the fallthrough serves: one variant, or a split of the users by their bucket.',
  },
);

const ruleFields = {
  description: Type.Optional(Type.String({ maxLength: 1000 })),
  clauses: Type.Array(Clause, {
    maxItems: TARGETING_LIMITS.clauses,
    description: 'Every clause must hold; none: everyone.',
  }),
  serve: Serve,
};

export const Rule = Type.Object(
  { id: Name('Unique in the flag; kept by every later `PATCH` that names it.'), ...ruleFields },
  {
    $id: 'Rule',
    additionalProperties: false,
    description: 'A rule: when every clause holds (no clauses: everyone), `serve`.',
  },
);

export const RuleInput = Type.Object(
  { id: Type.Optional(Name('A rule without one is given `r_` and 10 random characters.')), ...ruleFields },
  {
    $id: 'RuleInput',
    additionalProperties: false,
    description: 'A rule as a `POST` or `PATCH /flags` body gives it: its `id` may be left out.',
  },
);

export const Target = Type.Object(
  {
    variant: Type.String(),
    keys: Type.Array(Type.String({ minLength: 1 }), {
      maxItems: TARGETING_LIMITS.targetKeys,
      description: `At most ${TARGETING_LIMITS.targetKeys} keys over all the targets of a flag.`,
    }),
  },
  {
    $id: 'Target',
    additionalProperties: false,
    description: 'Individual users, by key, served one variant.',
  },
);

export const Prerequisite = Type.Object(
  {
    flag: Type.String({ description: 'The key of another flag of the environment.' }),
    variants: Type.Array(Type.String(), { minItems: 1, maxItems: TARGETING_LIMITS.variants }),
  },
  {
    $id: 'Prerequisite',
    additionalProperties: false,
    description: 'Another flag that must serve one of `variants` to this user first.',
  },
);

export const SegmentRule = Type.Object(
  {
    clauses: Type.Array(Clause, {
      maxItems: TARGETING_LIMITS.clauses,
      description: 'Every clause must hold (any operator but `inSegment`); none: everyone.',
    }),
  },
  {
    $id: 'SegmentRule',
    additionalProperties: false,
    description: "A segment's rule: users every clause holds for.",
  },
);

/** Variant name to value. */
export const Variants = Type.Record(Type.String({ pattern: NAME_PATTERN.source }), Json, {
  minProperties: 1,
  maxProperties: TARGETING_LIMITS.variants,
  additionalProperties: false,
  $id: 'Variants',
  description: `Variant name to value (1 to ${TARGETING_LIMITS.variants}, each at most 32 KiB of JSON). \`boolean\`/\`rollout\` flags: always \`{on: true, off: false}\`.`,
});

export const TargetingFields = Type.Object(
  {
    variants: Type.Optional(Variants),
    offVariant: Type.Optional(Type.String()),
    fallthrough: Type.Optional(Serve),
    targets: Type.Optional(Type.Array(Target, { maxItems: TARGETING_LIMITS.variants })),
    rules: Type.Optional(Type.Array(Rule, { maxItems: TARGETING_LIMITS.rules })),
    prerequisites: Type.Optional(Type.Array(Prerequisite, { maxItems: TARGETING_LIMITS.prerequisites })),
    salt: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  },
  {
    $id: 'TargetingFields',
    description: 'The targeting fields a flag may carry, on the wire (SDK and management forms).',
  },
);

/**
 * `schema` with `fields` taken as they come, for the validators that check those fields in code:
 * targeting, whose messages name the JSON path in words a schema cannot give (`rules[0].clauses[1].op:
 * unknown operator "startWith"`, `docs/protocol.md` §12.2), and which needs the flag and the
 * environment anyway. The rest of the body is checked by the schema.
 */
export function shapeOnly(schema: TObject, fields: readonly string[]): TObject {
  const properties: TProperties = { ...schema.properties };
  for (const field of fields) if (field in properties) properties[field] = Type.Optional(Type.Unknown());
  const { $id: _id, description: _description, ...options } = schema;
  return Type.Object(properties, options);
}
