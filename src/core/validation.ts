/**
 * Validation of management request bodies (`docs/protocol.md` §3). Pure and
 * side-effect free: the reference server answers 400 `VALIDATION_ERROR` with the
 * message; the messages always name the offending field.
 */
import { Type } from '@sinclair/typebox';
import { checkSchema } from './schemas/check.js';
import { CreateFlagInput as CreateFlagSchema, UpdateFlagInput as UpdateFlagSchema } from './schemas/flags.js';
import { shapeOnly } from './schemas/targeting.js';
import {
  CreateWebhookInput as CreateWebhookSchema,
  UpdateWebhookInput as UpdateWebhookSchema,
} from './schemas/webhooks.js';
import { TARGETING_FIELDS } from './targeting/types.js';
import { TargetingInvalid, validateVariants } from './targeting/validate.js';
import type {
  AnyFlagType,
  CreateFlagInput,
  CreateWebhookInput,
  UpdateFlagInput,
  UpdateWebhookInput,
} from './types.js';

/** Outcome of a validation: the normalized value, or the field at fault and why. */
export type Validation<T> = { ok: true; value: T } | { ok: false; field: string; message: string };

const fail = (field: string, message: string): { ok: false; field: string; message: string } => ({
  ok: false,
  field,
  message,
});

/** Checks a flag key against the key rules; `undefined` when it is valid. */
export function flagKeyProblem(key: unknown): string | undefined {
  const checked = checkSchema(FLAG_KEY, { key });
  return checked.ok ? undefined : checked.message;
}

const FLAG_KEY = Type.Object({ key: CreateFlagSchema.properties.key });

/**
 * The bodies' shapes (`CreateFlagInput`, `UpdateFlagInput`) but for their targeting fields, which
 * `validateVariants` here and the server's `validateFlagTargeting` (against the environment) check,
 * naming the JSON path (`docs/protocol.md` §12.2).
 */
const CREATE_FLAG = shapeOnly(CreateFlagSchema, TARGETING_FIELDS);
const UPDATE_FLAG = shapeOnly(UpdateFlagSchema, TARGETING_FIELDS);

/**
 * What the shape leaves to code: which fields the flag's type takes, and its variants (on
 * creating or changing a `string`/`number`/`json` flag: values of its type; a `PATCH` replaces
 * the whole map, and the server refuses removing a variant still in use, `docs/protocol.md` §12.1).
 */
function typeProblem(
  body: Record<string, unknown>,
  type: AnyFlagType,
  value: Record<string, unknown>,
  creating: boolean,
): Validation<never> | undefined {
  if (body.percentage !== undefined && type !== 'rollout')
    return fail('percentage', '"percentage" is only allowed on flags of type "rollout"');
  const binary = type === 'boolean' || type === 'rollout';
  if ('variants' in body) {
    if (binary)
      return fail(
        'variants',
        `"variants" is not allowed on ${type} flags: they are always {"on": true, "off": false}`,
      );
    try {
      value.variants = validateVariants(body.variants, type);
    } catch (error) {
      if (error instanceof TargetingInvalid) return fail(error.path, error.message);
      throw error;
    }
  } else if (creating && !binary) return fail('variants', `"variants" is required on ${type} flags`);
  for (const field of TARGETING_FIELDS) if (field !== 'variants' && field in body) value[field] = body[field];
  return undefined;
}

/** Validates a `POST /flags` body (its shape: `CreateFlagInput`); `enabled` is dropped. */
export function validateCreateFlag(body: unknown): Validation<CreateFlagInput> {
  const checked = checkSchema(CREATE_FLAG, body);
  if (!checked.ok) return checked;
  const { key, type, description, percentage } = checked.value as unknown as CreateFlagInput;
  const value: CreateFlagInput = { key, type };
  if (description !== undefined) value.description = description;
  if (percentage !== undefined) value.percentage = percentage;
  const problem = typeProblem(checked.value, type, value as unknown as Record<string, unknown>, true);
  return problem ?? { ok: true, value };
}

/** Validates a `PATCH /flags/:key` body (its shape: `UpdateFlagInput`) against the flag's type. */
export function validateUpdateFlag(body: unknown, type: AnyFlagType): Validation<UpdateFlagInput> {
  const checked = checkSchema(UPDATE_FLAG, body);
  if (!checked.ok) return checked;
  const { enabled, percentage, description } = checked.value as unknown as UpdateFlagInput;
  const value: UpdateFlagInput = {};
  if (enabled !== undefined) value.enabled = enabled;
  if (percentage !== undefined) value.percentage = percentage;
  if (description !== undefined) value.description = description;
  const problem = typeProblem(checked.value, type, value as unknown as Record<string, unknown>, false);
  return problem ?? { ok: true, value };
}

/** What the schema leaves to code: an absolute http(s) URL without credentials. */
function urlProblem(value: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return '"url" must be an absolute http or https URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return `"url" must use http or https, got ${parsed.protocol.slice(0, -1)}`;
  }
  if (parsed.username || parsed.password) return '"url" must not contain credentials';
  return undefined;
}

/** Validates a `POST /webhooks` body (its shape: `CreateWebhookInput`). */
export function validateCreateWebhook(body: unknown): Validation<CreateWebhookInput> {
  const checked = checkSchema(CreateWebhookSchema, body);
  if (!checked.ok) return checked;
  const url = urlProblem(checked.value.url);
  if (url) return fail('url', url);
  return { ok: true, value: { url: checked.value.url, events: [...checked.value.events] } };
}

/** Validates a `PATCH /webhooks/:id` body (its shape: `UpdateWebhookInput`). */
export function validateUpdateWebhook(body: unknown): Validation<UpdateWebhookInput> {
  const checked = checkSchema(UpdateWebhookSchema, body);
  if (!checked.ok) return checked;
  const { active, events, url } = checked.value;
  const value: UpdateWebhookInput = {};
  if (active !== undefined) value.active = active;
  if (events !== undefined) value.events = [...events];
  if (url !== undefined) {
    const problem = urlProblem(url);
    if (problem) return fail('url', problem);
    value.url = url;
  }
  return { ok: true, value };
}
