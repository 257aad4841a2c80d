/**
 * Checks a value against one of the API's schemas (`./common.ts`), the server's one way to
 * validate a request's shape. A schema is compiled once, on its first check. A refusal names
 * the field and says why in the API's words (`docs/protocol.md` §4: `"events" must name at least
 * one event kind`; a nested field as `"rules[0].serve"`), or by the schema's `errorMessage`.
 * The server's own module: no SDK entry point imports it (it compiles with `new Function`).
 */
import { FormatRegistry, type Static, type TSchema } from '@sinclair/typebox';
import { type TypeCheck, TypeCompiler } from '@sinclair/typebox/compiler';
import { ValueErrorType as E, type ValueError } from '@sinclair/typebox/errors';

/** Outcome of a check: the value, or the field at fault (`body` for the whole) and why. */
export type Checked<T> = { ok: true; value: T } | { ok: false; field: string; message: string };

const DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i;
if (!FormatRegistry.Has('date-time'))
  FormatRegistry.Set('date-time', (text) => DATE_TIME.test(text) && !Number.isNaN(Date.parse(text)));

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

function compiledOf(schema: TSchema): TypeCheck<TSchema> {
  let check = compiled.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    compiled.set(schema, check);
  }
  return check;
}

/** `value` against `schema`: the value as it is, or the first problem in the API's words. */
export function checkSchema<T extends TSchema>(schema: T, value: unknown): Checked<Static<T>> {
  const check = compiledOf(schema);
  if (check.Check(value)) return { ok: true, value: value as Static<T> };
  let first: ValueError | undefined;
  for (const error of check.Errors(value)) {
    // An unknown field is named first, as the API always has.
    if (error.type === E.ObjectAdditionalProperties) {
      first = error;
      break;
    }
    first ??= error;
  }
  if (!first) return { ok: false, field: 'body', message: 'request body is not valid' };
  const field =
    first.type === E.ObjectAdditionalProperties ? lastPart(first.path) : pathName(first.path) || 'body';
  return { ok: false, field, message: messageOf(first) };
}

/** A JSON pointer as the API names a field: `/rules/0/serve` is `rules[0].serve`. */
export function pathName(pointer: string): string {
  let name = '';
  for (const raw of pointer.split('/').slice(1)) {
    const part = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    name += /^\d+$/.test(part) ? `[${part}]` : name ? `.${part}` : part;
  }
  return name;
}

const _fieldOf = (pointer: string) =>
  pointer.split('/')[1]?.replaceAll('~1', '/').replaceAll('~0', '~') ?? 'body';

const lastPart = (pointer: string) =>
  pointer
    .slice(pointer.lastIndexOf('/') + 1)
    .replaceAll('~1', '/')
    .replaceAll('~0', '~');

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** A client's value for a message: text quoted and cut at 100 characters, never recursing. */
export function show(value: unknown): string {
  if (typeof value === 'string')
    return value.length > 100 ? `${JSON.stringify(value.slice(0, 100))}…` : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return describe(value);
}

const KIND: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'a boolean',
  array: 'an array',
  object: 'an object',
  null: 'null',
};

/** What a schema expects, in words: `a string`, `one of a, b`, `a string or null`. */
function expected(schema: TSchema): string {
  if ('const' in schema) return show(schema.const);
  if (Array.isArray(schema.anyOf)) {
    const members = schema.anyOf as TSchema[];
    if (members.every((m) => 'const' in m)) return `one of ${members.map((m) => m.const).join(', ')}`;
    return [...new Set(members.map(expected))].join(' or ');
  }
  return KIND[schema.type as string] ?? 'valid';
}

const KEYWORD: Partial<Record<E, string>> = {
  [E.ArrayMinItems]: 'minItems',
  [E.ArrayMaxItems]: 'maxItems',
  [E.ArrayUniqueItems]: 'uniqueItems',
  [E.StringMinLength]: 'minLength',
  [E.StringMaxLength]: 'maxLength',
  [E.StringPattern]: 'pattern',
  [E.StringFormat]: 'format',
  [E.NumberMinimum]: 'minimum',
  [E.NumberMaximum]: 'maximum',
  [E.IntegerMinimum]: 'minimum',
  [E.IntegerMaximum]: 'maximum',
  [E.ObjectRequiredProperty]: 'required',
  [E.ObjectAdditionalProperties]: 'additionalProperties',
  [E.ObjectMaxProperties]: 'maxProperties',
  [E.Union]: 'anyOf',
};

function messageOf({ type, schema, path, value }: ValueError): string {
  const custom = (schema as { errorMessage?: string | Record<string, string> }).errorMessage;
  const keyword = KEYWORD[type];
  if (typeof custom === 'string') return custom;
  if (custom && keyword && custom[keyword]) return custom[keyword]!;
  const field = JSON.stringify(pathName(path));
  const name = field.length > 102 ? `${field.slice(0, 101)}…"` : field;
  const length = (v: unknown) => (typeof v === 'string' || Array.isArray(v) ? v.length : 0);
  switch (type) {
    case E.ObjectAdditionalProperties: {
      const key = path
        .slice(path.lastIndexOf('/') + 1)
        .replaceAll('~1', '/')
        .replaceAll('~0', '~');
      const fixed = (schema as { 'x-fixed'?: string[] })['x-fixed'];
      const where =
        path.lastIndexOf('/') > 0
          ? ` in ${JSON.stringify(pathName(path.slice(0, path.lastIndexOf('/'))))}`
          : '';
      return fixed?.includes(key)
        ? `field ${show(key)} cannot be changed`
        : `unknown field ${show(key)}${where}`;
    }
    case E.ObjectRequiredProperty:
      return `${name} is required`;
    case E.Object:
      return path === ''
        ? `request body must be a JSON object, got ${describe(value)}`
        : `${name} must be an object, got ${describe(value)}`;
    case E.ArrayMinItems:
      return `${name} must have at least ${schema.minItems} item${schema.minItems === 1 ? '' : 's'}`;
    case E.ArrayMaxItems:
      return `${name} must have at most ${schema.maxItems} items, got ${length(value)}`;
    case E.ArrayUniqueItems: {
      const seen = new Set<string>();
      const twice = (value as unknown[]).find((item) => {
        const k = JSON.stringify(item);
        return seen.has(k) || !seen.add(k);
      });
      return `${name} lists ${show(twice)} twice`;
    }
    case E.StringMinLength:
    case E.StringMaxLength:
      return schema.minLength !== undefined && schema.maxLength !== undefined
        ? `${name} must be ${schema.minLength} to ${schema.maxLength} characters long, got ${length(value)}`
        : type === E.StringMaxLength
          ? `${name} must be at most ${schema.maxLength} characters long, got ${length(value)}`
          : `${name} must be at least ${schema.minLength} characters long`;
    case E.StringPattern:
      return `${name} must match ${schema.pattern}, got ${show(value)}`;
    case E.StringFormat:
      return `${name} must be ${schema.format === 'date-time' ? 'an ISO 8601 date and time' : `a ${schema.format}`}, got ${show(value)}`;
    case E.NumberMinimum:
    case E.IntegerMinimum:
      return `${name} must be at least ${schema.minimum}, got ${show(value)}`;
    case E.NumberMaximum:
    case E.IntegerMaximum:
      return `${name} must be at most ${schema.maximum}, got ${show(value)}`;
    case E.Union:
      return `${name} must be ${expected(schema)}; got ${show(value)}`;
    default:
      return `${name} must be ${expected(schema)}, got ${describe(value)}`;
  }
}
