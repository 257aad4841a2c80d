/**
 * OFREP as the reference server speaks it (`docs/protocol.md` §11; open-feature/protocol's
 * `service/openapi.yaml` v0.3): the request it takes and the answers it gives, the subset of
 * OpenFeature's document this server answers with (its tests hold every live answer to both).
 */
import { Type } from '@sinclair/typebox';
import { Json, Nullable } from './common.js';

export const OfrepContext = Type.Object(
  {
    targetingKey: Type.Optional(
      Nullable(Type.String(), { description: 'Who is evaluated: rollouts and splits bucket by it.' }),
    ),
  },
  {
    $id: 'OfrepContext',
    additionalProperties: Json,
    description: 'The evaluation context: its attributes, read as targeting reads a user (§12.2).',
  },
);

export const OfrepEvaluationRequest = Type.Object(
  { context: Type.Optional(Nullable(OfrepContext)) },
  {
    $id: 'OfrepEvaluationRequest',
    description:
      'Body of an evaluation, single or bulk; no body, or no (or a `null`) context, is an empty context.',
  },
);

export const OfrepReason = Type.Union(
  ['STATIC', 'TARGETING_MATCH', 'SPLIT', 'DISABLED', 'UNKNOWN'].map((r) => Type.Literal(r)),
  { $id: 'OfrepReason', description: "OFREP's reasons (§11.2 maps Flagwire's to them)." },
);

const Metadata = Type.Record(Type.String(), Type.Union([Type.Boolean(), Type.Number(), Type.String()]), {
  description: "The flag's metadata: `version`, `ruleId`, `fallthrough`... (§11.2).",
});

export const OfrepEvaluationSuccess = Type.Object(
  {
    key: Type.String(),
    value: Json,
    reason: OfrepReason,
    variant: Type.Optional(Type.String()),
    metadata: Type.Optional(Metadata),
  },
  { $id: 'OfrepEvaluationSuccess', description: "One flag's value for the context." },
);

export const OfrepEvaluationFailure = Type.Object(
  {
    key: Type.String(),
    errorCode: Type.Union(
      ['PARSE_ERROR', 'TARGETING_KEY_MISSING', 'INVALID_CONTEXT', 'GENERAL', 'FLAG_NOT_FOUND'].map((c) =>
        Type.Literal(c),
      ),
    ),
    errorDetails: Type.Optional(Type.String()),
    metadata: Type.Optional(Metadata),
  },
  { $id: 'OfrepEvaluationFailure', description: 'Why one flag has no value for the context.' },
);

export const OfrepEventStream = Type.Object(
  {
    type: Type.Literal('sse'),
    endpoint: Type.Object({ requestUri: Type.String({ description: 'Relative to the OFREP base URL.' }) }),
    inactivityDelaySec: Type.Integer({ minimum: 1 }),
  },
  { $id: 'OfrepEventStream', description: "Where the bulk answer's changes are announced (§11.4)." },
);

export const OfrepBulkEvaluationSuccess = Type.Object(
  {
    flags: Type.Array(Type.Union([OfrepEvaluationSuccess, OfrepEvaluationFailure])),
    metadata: Type.Optional(Type.Record(Type.String(), Type.Union([Type.Number(), Type.String()]))),
    eventStreams: Type.Optional(Type.Array(OfrepEventStream)),
  },
  { $id: 'OfrepBulkEvaluationSuccess', description: 'Every flag of the environment for the context.' },
);

export const OfrepBulkEvaluationFailure = Type.Object(
  { errorCode: Type.String(), errorDetails: Type.Optional(Type.String()) },
  { $id: 'OfrepBulkEvaluationFailure', description: 'Why no flag was evaluated.' },
);
