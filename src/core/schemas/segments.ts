/** Segments (`docs/protocol.md` §12.3): users by key, or by rules. */
import { Type } from '@sinclair/typebox';
import { DESCRIPTION_MAX_LENGTH, FLAG_KEY_MAX_LENGTH } from '../limits.js';
import { TARGETING_LIMITS } from '../targeting/validate-shape.js';
import { Nullable, Timestamp } from './common.js';
import { SegmentRule, SegmentRuleInput } from './targeting.js';

const SEGMENT_KEY = `^[A-Za-z0-9][A-Za-z0-9._-]{0,${FLAG_KEY_MAX_LENGTH - 1}}$`;

const Keys = (description: string) =>
  Nullable(
    Type.Array(Type.String({ minLength: 1, errorMessage: 'must be a non-empty string' }), {
      maxItems: TARGETING_LIMITS.segmentKeys,
    }),
    {
      description: `${description}; \`null\` is \`[]\`. \`included\` and \`excluded\` hold at most ${TARGETING_LIMITS.segmentKeys} keys in all; duplicates are dropped.`,
    },
  );

/** The fields a segment body may set; each given replaces the old one whole. */
const segmentFields = {
  description: Type.Optional(
    Nullable(Type.String({ maxLength: DESCRIPTION_MAX_LENGTH }), {
      errorMessage: { anyOf: `must be a string of at most ${DESCRIPTION_MAX_LENGTH} characters, or null` },
    }),
  ),
  included: Type.Optional(Keys('Users in the segment, by key, whatever its rules say')),
  excluded: Type.Optional(Keys('Users out of the segment, by key, whatever its rules say')),
  rules: Type.Optional(
    Nullable(Type.Array(SegmentRuleInput, { maxItems: TARGETING_LIMITS.rules }), {
      description: 'A user any rule holds for is in the segment; `null` is `[]`.',
    }),
  ),
};

export const SegmentRecord = Type.Object(
  {
    key: Type.String(),
    description: Nullable(Type.String()),
    included: Type.Array(Type.String()),
    excluded: Type.Array(Type.String()),
    rules: Type.Array(SegmentRule),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  {
    $id: 'SegmentRecord',
    description: 'A segment as `GET /segments` answers it (`docs/protocol.md` §12.3).',
  },
);

export const CreateSegmentInput = Type.Object(
  {
    key: Type.String({
      pattern: SEGMENT_KEY,
      errorMessage: 'must be 1 to 128 letters, digits, ".", "_" or "-", starting with a letter or digit',
      description: 'Unique in its environment; never changes.',
    }),
    ...segmentFields,
  },
  {
    $id: 'CreateSegmentInput',
    additionalProperties: false,
    description: '`POST /segments`: a key and who is in it (lists default to empty).',
  },
);

export const UpdateSegmentInput = Type.Object(segmentFields, {
  $id: 'UpdateSegmentInput',
  additionalProperties: false,
  'x-fixed': ['key', 'createdAt', 'updatedAt'],
  description: '`PATCH /segments/:key`: each field given replaces the old one whole.',
});
