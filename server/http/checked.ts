/** A request's body or query through its schema (`src/core/schemas`): the value, or the `400`. */
import type { Static, TSchema } from '@sinclair/typebox';
import { checkSchema } from '../../src/core/schemas/check.js';
import { validationError } from '../errors.js';

/** `value` as `schema` has it, or a `400 VALIDATION_ERROR` naming the field at fault (§4). */
export function checked<T extends TSchema>(schema: T, value: unknown): Static<T> {
  const result = checkSchema(schema, value);
  if (!result.ok) throw validationError(result.message);
  return result.value;
}
