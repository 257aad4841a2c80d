/**
 * TypeScript type text for flag values, deterministic: the same values give the same text
 * whatever the order of their variants or of their objects' keys (everything sorted, in
 * code-unit order). JSON values are typed by shape (`{ readonly title: string }`), read-only as
 * the SDK hands them out (frozen); string flag values by their literals.
 */
import type { JsonValue } from '../src/index.js';

/** A TypeScript string literal for `text` (JSON's escaping is valid TypeScript). */
export const literal = (text: string): string => JSON.stringify(text);

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A property name: bare when it is an identifier, else quoted. */
const propertyName = (name: string): string => (IDENTIFIER.test(name) ? name : literal(name));

/** The distinct members, sorted, joined as a union (`never` when there are none). */
export function union(members: Iterable<string>): string {
  const sorted = [...new Set(members)].sort();
  return sorted.length === 0 ? 'never' : sorted.join(' | ');
}

/** The type of one JSON value, by shape. */
export function shapeOf(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    const element = union(value.map(shapeOf));
    return element.includes(' | ') ? `readonly (${element})[]` : `readonly ${element}[]`;
  }
  if (typeof value === 'object') {
    const keys = Object.keys(value).sort();
    if (keys.length === 0) return 'Readonly<Record<string, never>>';
    const members = keys.map((key) => `readonly ${propertyName(key)}: ${shapeOf(value[key]!)}`);
    return `{ ${members.join('; ')} }`;
  }
  return typeof value;
}
