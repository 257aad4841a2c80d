/**
 * Validation of management request bodies (`docs/protocol.md` §3). Pure and
 * side-effect free: the reference server answers 400 `VALIDATION_ERROR` with the
 * message; the messages always name the offending field.
 */
import { DESCRIPTION_MAX_LENGTH, FLAG_KEY_MAX_LENGTH, FLAG_KEY_PATTERN } from './limits.js';
import { checkSchema } from './schemas/check.js';
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

type Body = Record<string, unknown>;

const fail = (field: string, message: string): { ok: false; field: string; message: string } => ({
  ok: false,
  field,
  message,
});

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * A short, safe rendering of a client's value for a message: strings quoted and cut at 100
 * characters, numbers and booleans as they are, anything else by its kind. Never recurses
 * (`JSON.stringify` of a deeply nested value would overflow the stack).
 */
function show(value: unknown): string {
  if (typeof value === 'string') {
    return value.length > 100 ? `${JSON.stringify(value.slice(0, 100))}…` : JSON.stringify(value);
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return describe(value);
}

function isObject(value: unknown): value is Body {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The first field of `body` that is not in `allowed`, if any. */
function unknownField(body: Body, allowed: readonly string[]): string | undefined {
  for (const name of Object.keys(body)) if (!allowed.includes(name)) return name;
  return undefined;
}

/** Checks a flag key against the key rules; `undefined` when it is valid. */
export function flagKeyProblem(key: unknown): string | undefined {
  if (typeof key !== 'string') return `"key" must be a string, got ${describe(key)}`;
  if (key.length < 1 || key.length > FLAG_KEY_MAX_LENGTH) {
    return `"key" must be 1 to ${FLAG_KEY_MAX_LENGTH} characters long, got ${key.length}`;
  }
  if (!FLAG_KEY_PATTERN.test(key)) {
    return '"key" may contain only letters, digits, ".", "_" and "-", and must start with a letter or digit';
  }
  return undefined;
}

function descriptionProblem(value: unknown): string | undefined {
  if (value === null) return undefined;
  if (typeof value !== 'string') return `"description" must be a string or null, got ${describe(value)}`;
  if (value.length > DESCRIPTION_MAX_LENGTH) {
    return `"description" must be at most ${DESCRIPTION_MAX_LENGTH} characters long, got ${value.length}`;
  }
  return undefined;
}

function percentageProblem(value: unknown): string | undefined {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 100) {
    return `"percentage" must be an integer from 0 to 100, got ${typeof value === 'number' ? value : describe(value)}`;
  }
  return undefined;
}

const bodyNotObject = (body: unknown) =>
  fail('body', `request body must be a JSON object, got ${describe(body)}`);

/** Targeting fields (`docs/protocol.md` §12): checked here for their shape where it needs no environment; the server checks the rest (`validateFlagTargeting`) against the environment. */

const CREATE_FLAG_FIELDS = [
  'key',
  'type',
  'description',
  'percentage',
  'enabled',
  ...TARGETING_FIELDS,
] as const;

const FLAG_TYPES: readonly AnyFlagType[] = ['boolean', 'rollout', 'string', 'number', 'json'];

/** Copies the targeting fields of `body` into `value`, checking `variants` against `type`. */
function takeTargeting(
  body: Body,
  type: AnyFlagType,
  value: Record<string, unknown>,
  creating: boolean,
): Validation<never> | undefined {
  const binary = type === 'boolean' || type === 'rollout';
  if ('variants' in body) {
    if (binary)
      return fail(
        'variants',
        `"variants" is not allowed on ${type} flags: they are always {"on": true, "off": false}`,
      );
    if (!creating) return fail('variants', '"variants" cannot be changed yet: create a new flag');
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

/** Validates a `POST /flags` body. */
export function validateCreateFlag(body: unknown): Validation<CreateFlagInput> {
  if (!isObject(body)) return bodyNotObject(body);
  const extra = unknownField(body, CREATE_FLAG_FIELDS);
  if (extra !== undefined) return fail(extra, `unknown field ${show(extra)}`);
  if (!('key' in body)) return fail('key', '"key" is required');
  const keyProblem = flagKeyProblem(body.key);
  if (keyProblem) return fail('key', keyProblem);
  if (!('type' in body)) return fail('type', '"type" is required');
  if (!FLAG_TYPES.includes(body.type as AnyFlagType)) {
    return fail(
      'type',
      `"type" must be one of ${FLAG_TYPES.map((t) => `"${t}"`).join(', ')}, got ${show(body.type)}`,
    );
  }
  const type = body.type as AnyFlagType;
  if ('enabled' in body && typeof body.enabled !== 'boolean') {
    return fail('enabled', `"enabled" must be a boolean, got ${describe(body.enabled)}`);
  }
  const value: CreateFlagInput = { key: body.key as string, type };
  if ('description' in body) {
    const problem = descriptionProblem(body.description);
    if (problem) return fail('description', problem);
    value.description = body.description as string | null;
  }
  if ('percentage' in body) {
    if (type !== 'rollout')
      return fail('percentage', '"percentage" is only allowed on flags of type "rollout"');
    const problem = percentageProblem(body.percentage);
    if (problem) return fail('percentage', problem);
    value.percentage = body.percentage as number;
  }
  const targeting = takeTargeting(body, type, value as unknown as Record<string, unknown>, true);
  return targeting ?? { ok: true, value };
}

const UPDATE_FLAG_FIELDS = ['enabled', 'percentage', 'description', ...TARGETING_FIELDS] as const;

/** Validates a `PATCH /flags/:key` body against the type of the flag it changes. */
export function validateUpdateFlag(body: unknown, type: AnyFlagType): Validation<UpdateFlagInput> {
  if (!isObject(body)) return bodyNotObject(body);
  const extra = unknownField(body, UPDATE_FLAG_FIELDS);
  if (extra !== undefined) {
    const why =
      extra === 'key' || extra === 'type'
        ? `field ${show(extra)} cannot be changed`
        : `unknown field ${show(extra)}`;
    return fail(extra, why);
  }
  const value: UpdateFlagInput = {};
  if ('enabled' in body) {
    if (typeof body.enabled !== 'boolean') {
      return fail('enabled', `"enabled" must be a boolean, got ${describe(body.enabled)}`);
    }
    value.enabled = body.enabled;
  }
  if ('percentage' in body) {
    if (type !== 'rollout')
      return fail('percentage', '"percentage" is only allowed on flags of type "rollout"');
    const problem = percentageProblem(body.percentage);
    if (problem) return fail('percentage', problem);
    value.percentage = body.percentage as number;
  }
  if ('description' in body) {
    const problem = descriptionProblem(body.description);
    if (problem) return fail('description', problem);
    value.description = body.description as string | null;
  }
  const targeting = takeTargeting(body, type, value as unknown as Record<string, unknown>, false);
  return targeting ?? { ok: true, value };
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
