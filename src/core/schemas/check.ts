/**
 * Checks a value against one of the API's schemas (`./common.ts`), the server's one way to
 * validate a request's shape. A schema is compiled once, on its first check. A refusal names
 * the field and says why in the API's words (`docs/protocol.md` §4: `"events" must name at least
 * one event kind`; a nested field as `"rules[0].serve"`); a schema's `errorMessage` gives the
 * why (`must name at least one event kind`), by keyword or for all, the field is named before it;
 * in it `{value}` is the value at fault as JSON (`unknown operator {value}`), `{count}` its
 * number of items, fields or characters.
 * The server's own module: no SDK entry point imports it (it compiles with `new Function`).
 */
import { FormatRegistry, type Static, type TSchema } from '@sinclair/typebox';
import { type TypeCheck, TypeCompiler } from '@sinclair/typebox/compiler';
import { ValueErrorType as E, type ValueError } from '@sinclair/typebox/errors';
import { kind } from '../targeting/validate-shape.js';

/** Outcome of a check: the value, or the field at fault (`body` for the whole) and why. */
export type Checked<T> =
  | { ok: true; value: T }
  | {
      ok: false;
      field: string;
      message: string;
      /** Where the problem is, as the API names a path (`rules[0].serve`; `root` for the whole). */
      at: string;
      /** What it is, without the path (`must be an object, got null`). */
      reason: string;
    };

const DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i;
if (!FormatRegistry.Has('date-time'))
  FormatRegistry.Set('date-time', (text) => DATE_TIME.test(text) && !Number.isNaN(Date.parse(text)));

/**
 * A schema compiled: `full` checks every keyword; `fast` all but `uniqueItems`, whose check in
 * TypeBox hashes each item (about 1.3 us for two strings), done instead by `unique` on the
 * arrays that keyword marks, reached by their paths (`*`: every item). `full` speaks only to say
 * what is wrong.
 */
interface Compiled {
  full: TypeCheck<TSchema>;
  fast: TypeCheck<TSchema>;
  unique: readonly (readonly string[])[];
}

const compiled = new WeakMap<TSchema, Compiled>();

function compiledOf(schema: TSchema): Compiled {
  let check = compiled.get(schema);
  if (!check) {
    const unique: string[][] = [];
    const fast = withoutUnique(schema, [], unique) as TSchema;
    const full = TypeCompiler.Compile(schema);
    check = { full, fast: unique.length ? TypeCompiler.Compile(fast) : full, unique };
    compiled.set(schema, check);
  }
  return check;
}

/** `schema` without `uniqueItems`, the paths of the arrays it marked added to `found`. */
function withoutUnique(schema: unknown, path: string[], found: string[][]): unknown {
  if (typeof schema !== 'object' || schema === null) return schema;
  if (Array.isArray(schema)) return schema.map((s) => withoutUnique(s, path, found));
  const node = schema as Record<string | symbol, unknown>;
  const out: Record<string | symbol, unknown> = {};
  for (const key of Reflect.ownKeys(node)) {
    const value = node[key];
    if (key === 'uniqueItems') {
      if (value === true) found.push(path);
      continue;
    }
    if (key === 'properties')
      out[key] = Object.fromEntries(
        Object.entries(value as object).map(([name, s]) => [name, withoutUnique(s, [...path, name], found)]),
      );
    else if (key === 'items') out[key] = withoutUnique(value, [...path, '*'], found);
    else if (key === 'anyOf' || key === 'allOf') out[key] = withoutUnique(value, path, found);
    else out[key] = value;
  }
  return out;
}

/** The position of the first item of `items` that an earlier one equals (as JSON), or -1. */
function repeated(items: readonly unknown[]): number {
  const seen = new Set<unknown>();
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    const key = typeof item === 'object' && item !== null ? JSON.stringify(item) : item;
    if (seen.has(key)) return i;
    seen.add(key);
  }
  return -1;
}

/** Whether every array at `path` in `value` holds no item twice (items compared as JSON). */
function unique(value: unknown, path: readonly string[], at = 0): boolean {
  if (typeof value !== 'object' || value === null) return true;
  if (at === path.length) return !Array.isArray(value) || repeated(value) < 0;
  const step = path[at]!;
  if (step === '*') return !Array.isArray(value) || value.every((item) => unique(item, path, at + 1));
  return unique((value as Record<string, unknown>)[step], path, at + 1);
}

/**
 * How a refusal reads. `quoted` (request bodies): `"rules[0].serve" must be an object, got null`.
 * `path` (the config file, usage reports): `projects[0].key: must be ...`, `root` naming the whole.
 */
export type MessageStyle = 'quoted' | 'path';

/** `value` against `schema`: the value as it is, or the first problem in the API's words. */
export function checkSchema<T extends TSchema>(
  schema: T,
  value: unknown,
  style: MessageStyle = 'quoted',
  /** What `path` messages call the whole value (`config`, `(body)`). */
  root = 'body',
): Checked<Static<T>> {
  try {
    return checked(schema, value, style, root);
  } catch (error) {
    // The schema's check recurses: a value nested thousands deep where it looks (`uniqueItems`
    // compares items whole) overflows the stack. Said of the field that holds it.
    if (!(error instanceof RangeError)) throw error;
    const deep = deepestField(value);
    const said = phrase(deep, `nests too deep (more than ${MAX_DEPTH} levels)`, style, root, {
      wholeBody: true,
    });
    return { ok: false, field: deep || 'body', ...said };
  }
}

function checked<T extends TSchema>(
  schema: T,
  value: unknown,
  style: MessageStyle,
  root: string,
): Checked<Static<T>> {
  const { fast, full, unique: arrays } = compiledOf(schema);
  if (fast.Check(value) && arrays.every((path) => unique(value, path)))
    return { ok: true, value: value as Static<T> };
  let first: ValueError | undefined;
  for (const error of full.Errors(value)) {
    // An unknown field is named first, as the API always has.
    if (error.type === E.ObjectAdditionalProperties) {
      first = error;
      break;
    }
    first ??= error;
  }
  if (!first)
    return {
      ok: false,
      field: 'body',
      message: 'request body is not valid',
      at: root,
      reason: 'is not valid',
    };
  first = within(first);
  const said = messageOf(first, style, root);
  // The field the message names: an unknown one by its name, else where the problem is.
  const field =
    first.type === E.ObjectAdditionalProperties ? lastPart(first.path) : said.at === root ? 'body' : said.at;
  return { ok: false, field, ...said };
}

/** Deeper than any body the API takes (a variant value nests 32 levels, inside a flag). */
const MAX_DEPTH = 64;

/** The top-level field holding the value nested deepest (`''`: the whole), walked without recursion. */
function deepestField(value: unknown): string {
  if (typeof value !== 'object' || value === null) return '';
  const stack: Array<[value: unknown, depth: number, field: string]> = [[value, 1, '']];
  while (stack.length > 0) {
    const [v, depth, field] = stack.pop()!;
    if (depth > MAX_DEPTH) return field;
    const items = Array.isArray(v) ? v.entries() : Object.entries(v as object);
    for (const [key, item] of items)
      if (typeof item === 'object' && item !== null)
        stack.push([item, depth + 1, depth === 1 && !Array.isArray(v) ? String(key) : field]);
  }
  return '';
}

/** The JSON type of a value, as a schema's `type` names it. */
const typeOf = (value: unknown): string =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'array'
      : Number.isInteger(value)
        ? 'integer'
        : typeof value;

/**
 * A union's refusal, said of the member the value was meant for: the one of its JSON type (an
 * object for `T | null`), when exactly one is, by that member's first problem. Of objects, the
 * first member whose required fields the value has (`{variant}` or `{split}`); a value of another
 * type than all the members (objects, none a `const`), as of the first member.
 */
function within(error: ValueError): ValueError {
  if (error.type !== E.Union || !Array.isArray(error.schema.anyOf)) return error;
  const type = typeOf(error.value);
  const members = (error.schema.anyOf as TSchema[]).map((m, i) => [m, i] as const);
  let meant = members.filter(([m]) => m.type === type || (m.type === 'number' && type === 'integer'));
  if (meant.length === 0 && members.every(([m]) => m.type === 'object' && !('const' in m)))
    return { ...error, type: E.Object, schema: members[0]![0], errors: [] };
  if (meant.length > 1 && type === 'object') {
    const has = (m: TSchema) =>
      Array.isArray(m.required) && (m.required as string[]).every((key) => key in (error.value as object));
    meant = meant.filter(([m]) => has(m)).slice(0, 1);
  }
  if (meant.length !== 1 || 'const' in meant[0]![0]) return error;
  const inner = error.errors[meant[0]![1]]?.First();
  return inner ? within(inner) : error;
}

/** One segment of a JSON pointer, unescaped (`~1` is `/`, `~0` is `~`). */
const unescaped = (segment: string) => segment.replaceAll('~1', '/').replaceAll('~0', '~');

/** A JSON pointer as the API names a field: `/rules/0/serve` is `rules[0].serve`. */
function pathName(pointer: string): string {
  let name = '';
  for (const part of pointer.split('/').slice(1).map(unescaped))
    name += /^\d+$/.test(part) ? `[${part}]` : name ? `.${part}` : part;
  return name;
}

const lastPart = (pointer: string) => unescaped(pointer.slice(pointer.lastIndexOf('/') + 1));

/** A client's value for a message: text quoted and cut at 100 characters, never recursing. */
function show(value: unknown): string {
  if (typeof value === 'string')
    return value.length > 100 ? `${JSON.stringify(value.slice(0, 100))}…` : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return kind(value);
}

/** A value as a refusal quotes it (`{value}` in an `errorMessage`): as JSON, cut at 200 characters. */
function quoted(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    // Nested too deep to print.
  }
  if (text === undefined) return kind(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** How many items, fields or characters a value has (`{count}` in an `errorMessage`). */
const countOf = (value: unknown): number =>
  typeof value === 'string' || Array.isArray(value)
    ? value.length
    : typeof value === 'object' && value !== null
      ? Object.keys(value).length
      : 0;

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
  [E.ObjectMinProperties]: 'minProperties',
  [E.ObjectMaxProperties]: 'maxProperties',
  [E.Object]: 'type',
  [E.Array]: 'type',
  [E.String]: 'type',
  [E.Number]: 'type',
  [E.Integer]: 'type',
  [E.Boolean]: 'type',
  [E.Union]: 'anyOf',
};

function messageOf(
  error: ValueError,
  style: MessageStyle,
  root: string,
): { message: string; at: string; reason: string } {
  const { type, schema } = error;
  const custom = (schema as { errorMessage?: string | Record<string, string> }).errorMessage;
  const keyword = KEYWORD[type];
  const own = typeof custom === 'string' ? custom : keyword && custom?.[keyword];
  const [at, generic] = problemOf(error);
  // A field left out that a union or an enum names (`op`): missing, whatever its own message says.
  const missing = error.value === undefined && error.path !== '' && type !== E.ObjectAdditionalProperties;
  const reason = missing
    ? 'is required'
    : own && type !== E.ObjectAdditionalProperties
      ? own
          .replaceAll('{value}', () => quoted(error.value))
          .replaceAll('{count}', () => String(countOf(error.value)))
      : generic;
  return phrase(pathName(at), reason, style, root, {
    wholeBody: type === E.Object,
    has: type === E.ObjectAdditionalProperties && reason.startsWith('unknown'),
  });
}

/**
 * A refusal in words. `path` style: `subject: reason` (`root` for the whole). `quoted` style:
 * `"subject" reason` (`has` puts "has" between: `"rules[0]" has unknown field ...`); of the whole,
 * `request body reason` when the reason is of the body itself (`wholeBody`), else the reason alone.
 */
function phrase(
  subject: string,
  reason: string,
  style: MessageStyle,
  root: string,
  { wholeBody = false, has = false }: { wholeBody?: boolean; has?: boolean } = {},
): { message: string; at: string; reason: string } {
  const said = (message: string) => ({ message, at: subject || root, reason });
  if (style === 'path') return said(`${subject || root}: ${reason}`);
  if (!subject) return said(wholeBody ? `request body ${reason}` : reason);
  const quoted = JSON.stringify(subject);
  return said(`${quoted.length > 102 ? `${quoted.slice(0, 101)}…"` : quoted} ${has ? 'has ' : ''}${reason}`);
}

/** Where a problem is (a JSON pointer) and what it is, in words. */
function problemOf({ type, schema, path, value }: ValueError): [at: string, reason: string] {
  const length = (v: unknown) => (typeof v === 'string' || Array.isArray(v) ? v.length : 0);
  switch (type) {
    case E.ObjectAdditionalProperties: {
      const key = lastPart(path);
      const parent = path.slice(0, path.lastIndexOf('/'));
      if ((schema as { 'x-fixed'?: string[] })['x-fixed']?.includes(key))
        return [parent, `field ${show(key)} cannot be changed`];
      // A record's key that its pattern refuses (`variants`).
      const patterns = Object.keys((schema.patternProperties as object | undefined) ?? {});
      if (patterns.length === 1) return [path, `must match ${patterns[0]}, got ${show(key)}`];
      const allowed = Object.keys((schema.properties as object | undefined) ?? {});
      return [parent, `unknown field ${show(key)} (allowed: ${allowed.join(', ') || 'none'})`];
    }
    case E.ObjectRequiredProperty:
      return [path, 'is required'];
    case E.Object:
      return [path, `must be ${path === '' ? 'a JSON object' : 'an object'}, got ${kind(value)}`];
    case E.ObjectMinProperties:
      return [
        path,
        `must have at least ${schema.minProperties} field${schema.minProperties === 1 ? '' : 's'}`,
      ];
    case E.ObjectMaxProperties:
      return [path, `must have at most ${schema.maxProperties} fields, got ${countOf(value)}`];
    case E.ArrayMinItems:
      return [path, `must have at least ${schema.minItems} item${schema.minItems === 1 ? '' : 's'}`];
    case E.ArrayMaxItems:
      return [path, `must have at most ${schema.maxItems} items, got ${length(value)}`];
    case E.ArrayUniqueItems: {
      const items = value as unknown[];
      return [path, `lists ${show(items[repeated(items)])} twice`];
    }
    case E.StringMinLength:
    case E.StringMaxLength:
      return [
        path,
        schema.minLength !== undefined && schema.maxLength !== undefined
          ? `must be ${schema.minLength} to ${schema.maxLength} characters long, got ${length(value)}`
          : type === E.StringMaxLength
            ? `must be at most ${schema.maxLength} characters long, got ${length(value)}`
            : `must be at least ${schema.minLength} characters long`,
      ];
    case E.StringPattern:
      return [path, `must match ${schema.pattern}, got ${show(value)}`];
    case E.StringFormat:
      return [
        path,
        `must be ${schema.format === 'date-time' ? 'an ISO 8601 date and time' : `a ${schema.format}`}, got ${show(value)}`,
      ];
    case E.NumberMinimum:
    case E.IntegerMinimum:
      return [path, `must be at least ${schema.minimum}, got ${show(value)}`];
    case E.NumberMaximum:
    case E.IntegerMaximum:
      return [path, `must be at most ${schema.maximum}, got ${show(value)}`];
    case E.Union: {
      // An item of a list of choices (`events: ["flag.created"]`) is said of the list.
      const parent = path.slice(0, path.lastIndexOf('/'));
      const choices = (schema.anyOf as TSchema[]).every((m) => 'const' in m);
      if (choices && /\/\d+$/.test(path))
        return [parent, `may contain only ${expected(schema).slice('one of '.length)}; got ${show(value)}`];
      return [path, `must be ${expected(schema)}; got ${show(value)}`];
    }
    default:
      return [path, `must be ${expected(schema)}, got ${kind(value)}`];
  }
}
