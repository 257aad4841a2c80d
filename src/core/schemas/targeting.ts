/**
 * Targeting on the wire (`docs/protocol.md` §12): clauses, rules, what a rule or the fallthrough
 * serves, individual targets, prerequisites and segment rules. The limits are
 * `TARGETING_LIMITS` (§12.5). What needs the flag or the environment (a variant the flag has,
 * a segment that exists, an operator's values) is the targeting validators' (`../targeting/validate.ts`).
 */
import { type TObject, type TProperties, type TSchema, Type } from '@sinclair/typebox';
import { CLAUSE_OPERATORS } from '../targeting/types.js';
import { NAME_PATTERN, TARGETING_LIMITS } from '../targeting/validate-shape.js';
import { Json } from './common.js';

const NAME = `must match ${NAME_PATTERN.source}, got {value}`;

/** A variant's or a rule id's name: `^[A-Za-z0-9_.-]{1,64}$`. */
const Name = (description: string) =>
  Type.String({ pattern: NAME_PATTERN.source, description, errorMessage: { type: NAME } });

const ATTRIBUTE =
  'A top-level attribute, `key`, `$now`, or a JSON pointer `/a/b` (escaping only `~0` and `~1`).';
const NOT_ATTRIBUTE = 'must be an attribute name or a JSON pointer, got {value}';
const Attribute = (description = ATTRIBUTE) =>
  Type.String({
    minLength: 1,
    maxLength: 256,
    // A JSON pointer escapes only `~0` and `~1`.
    pattern: '^(?!/[\\s\\S]*~(?:[^01]|$))',
    description,
    errorMessage: {
      type: NOT_ATTRIBUTE,
      minLength: NOT_ATTRIBUTE,
      maxLength: NOT_ATTRIBUTE,
      pattern: 'a JSON pointer escapes only ~0 and ~1',
    },
  });

export const ClauseOperator = Type.Union(
  CLAUSE_OPERATORS.map((op) => Type.Literal(op)),
  {
    $id: 'ClauseOperator',
    description: 'The operators of a clause (`docs/protocol.md` §12.2).',
    errorMessage: 'unknown operator {value}',
  },
);

const VALUES =
  "The operands, of the operator's kind (§12.2): none for `exists` (which may leave it out), segment keys for `inSegment`.";
const VALUES_INPUT =
  "The operands, of the operator's kind (§12.2): none for `exists` (which may leave it out), at least one for any other operator, segment keys for `inSegment`.";

/** A clause's fields; `values` may be left out of a body's clause (for `exists`). */
const clauseFields = <V extends TSchema>(values: V) => ({
  attribute: Type.Optional(Attribute(`${ATTRIBUTE} Absent for \`inSegment\`.`)),
  op: ClauseOperator,
  values,
  negate: Type.Optional(
    Type.Boolean({ description: 'Inverts the whole clause, a missing attribute included.' }),
  ),
  caseInsensitive: Type.Optional(
    Type.Boolean({ description: 'Lowercases both sides for `in`, the string operators and `matches`.' }),
  ),
});

const Values = (description: string) =>
  Type.Array(Type.Unknown(), { maxItems: TARGETING_LIMITS.values, description });

export const Clause = Type.Object(clauseFields(Values(VALUES)), {
  $id: 'Clause',
  additionalProperties: false,
  description: 'One condition on a user: `attribute` `op` any of `values`, maybe negated as a whole.',
});

export const ClauseInput = Type.Object(clauseFields(Type.Optional(Values(VALUES_INPUT))), {
  $id: 'ClauseInput',
  additionalProperties: false,
  description: 'A clause as a body gives it: `values` may be left out for `exists`.',
});

export const SplitSlice = Type.Object(
  {
    variant: Type.Union([Type.String(), Type.Null()], {
      description: 'The variant, or `null` (only in rules): this rule does not serve the user.',
    }),
    weight: Type.Integer({
      minimum: 0,
      description: 'Thousandths of a percent.',
      errorMessage: 'must be a non-negative integer, got {value}',
    }),
  },
  {
    $id: 'SplitSlice',
    additionalProperties: false,
    description: 'One slice of a split: `variant` for `weight` thousandths of a percent.',
  },
);

const ONE_TO_TEN = 'must name 1 to 10 attributes';

export const Serve = Type.Union(
  [
    Type.Object({ variant: Type.String() }, { additionalProperties: false }),
    Type.Object(
      {
        split: Type.Array(SplitSlice, {
          minItems: 1,
          maxItems: TARGETING_LIMITS.variants + 1,
          description: 'Weights sum to exactly 100,000 (thousandths of a percent).',
          errorMessage: { minItems: 'must have at least one slice' },
        }),
        bucketBy: Type.Optional(
          Type.Union(
            [
              Attribute(),
              Type.Array(Attribute(), {
                minItems: 1,
                maxItems: 10,
                errorMessage: { minItems: ONE_TO_TEN, maxItems: ONE_TO_TEN },
              }),
            ],
            {
              description: 'The attribute(s) whose first present value is bucketed (default `key`).',
              errorMessage: { anyOf: NOT_ATTRIBUTE },
            },
          ),
        ),
        salt: Type.Optional(
          Type.String({
            maxLength: 256,
            description: "Hashed before the bucket value (default: the flag's `salt`, else its key).",
            errorMessage: 'must be a string of at most 256 characters',
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
    errorMessage: { anyOf: 'must have "variant" or "split"' },
  },
);

const ruleFields = <C extends TSchema>(clause: C) => ({
  description: Type.Optional(
    Type.String({ maxLength: 1000, errorMessage: 'must be a string of at most 1000 characters' }),
  ),
  clauses: Type.Array(clause, {
    maxItems: TARGETING_LIMITS.clauses,
    description: 'Every clause must hold; none: everyone.',
  }),
  serve: Serve,
});

export const Rule = Type.Object(
  { id: Name('Unique in the flag; kept by every later `PATCH` that names it.'), ...ruleFields(Clause) },
  {
    $id: 'Rule',
    additionalProperties: false,
    description: 'A rule: when every clause holds (no clauses: everyone), `serve`.',
  },
);

export const RuleInput = Type.Object(
  {
    id: Type.Optional(Name('A rule without one is given `r_` and 10 random characters.')),
    ...ruleFields(ClauseInput),
  },
  {
    $id: 'RuleInput',
    additionalProperties: false,
    description: 'A rule as a `POST` or `PATCH /flags` body gives it: its `id` may be left out.',
  },
);

export const Target = Type.Object(
  {
    variant: Type.String(),
    keys: Type.Array(Type.String({ minLength: 1, errorMessage: 'must be a non-empty string' }), {
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
    flag: Type.String({
      description: 'The key of another flag of the environment.',
      errorMessage: 'must be the key of another flag',
    }),
    variants: Type.Array(Type.String(), {
      minItems: 1,
      maxItems: TARGETING_LIMITS.variants,
      errorMessage: { minItems: 'must name at least one variant' },
    }),
  },
  {
    $id: 'Prerequisite',
    additionalProperties: false,
    description: 'Another flag that must serve one of `variants` to this user first.',
  },
);

const segmentRuleFields = <C extends TSchema>(clause: C) => ({
  clauses: Type.Array(clause, {
    maxItems: TARGETING_LIMITS.clauses,
    description: 'Every clause must hold (any operator but `inSegment`); none: everyone.',
  }),
});

export const SegmentRule = Type.Object(segmentRuleFields(Clause), {
  $id: 'SegmentRule',
  additionalProperties: false,
  description: "A segment's rule: users every clause holds for.",
});

export const SegmentRuleInput = Type.Object(segmentRuleFields(ClauseInput), {
  $id: 'SegmentRuleInput',
  additionalProperties: false,
  description: "A segment's rule as a body gives it: `values` may be left out of an `exists` clause.",
});

const VARIANT_COUNT = `must have 1 to ${TARGETING_LIMITS.variants} variants, got {count}`;

/** Variant name to value. */
export const Variants = Type.Record(Type.String({ pattern: NAME_PATTERN.source }), Json, {
  minProperties: 1,
  maxProperties: TARGETING_LIMITS.variants,
  additionalProperties: false,
  $id: 'Variants',
  description: `Variant name to value (1 to ${TARGETING_LIMITS.variants}, each at most 32 KiB of JSON). \`boolean\`/\`rollout\` flags: always \`{on: true, off: false}\`.`,
  errorMessage: { minProperties: VARIANT_COUNT, maxProperties: VARIANT_COUNT },
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
 * `schema` with `fields` taken as they come, for a body whose other fields are checked in the
 * `quoted` style (`"key" must ...`): a flag's targeting fields, whose messages name the JSON path
 * (`rules[0].clauses[1].op: unknown operator "startWith"`, `docs/protocol.md` §12.2), are checked
 * by their own schema (`TargetingInput`, in the `path` style) in the targeting validators, which
 * need the flag and the environment anyway.
 */
export function shapeOnly(schema: TObject, fields: readonly string[]): TObject {
  const properties: TProperties = { ...schema.properties };
  for (const field of fields) if (field in properties) properties[field] = Type.Optional(Type.Unknown());
  const { $id: _id, description: _description, ...options } = schema;
  return Type.Object(properties, options);
}
