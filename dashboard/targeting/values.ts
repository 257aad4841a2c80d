/**
 * Reading a clause's values as typed (`docs/protocol.md` §12.2): numbers for the number
 * operators, dates with an offset or epoch milliseconds, SemVer versions, and for "is one of"
 * text, numbers or true/false as the user says. A piece that is not one is named at once; the
 * server still checks everything when the flag is saved.
 */
import type { ParseValue } from '../components/chips-input.js';
import type { ValueKind } from './words.js';

/** What an "is one of" clause compares with: text, numbers or true/false (JSON types are strict). */
export type ScalarMode = 'text' | 'number' | 'boolean';

const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const VERSION = /^\d+(?:\.\d+){0,2}(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;
const OFFSET = /(?:[zZ]|[+-]\d\d:?\d\d)$/;

const quoted = (text: string) => `“${text.length > 40 ? `${text.slice(0, 40)}…` : text}”`;

const asNumber: ParseValue = (text) =>
  NUMBER.test(text) && Number.isFinite(Number(text))
    ? { value: Number(text) }
    : { problem: `${quoted(text)} is not a number` };

const asBoolean: ParseValue = (text) =>
  text === 'true' || text === 'false'
    ? { value: text === 'true' }
    : { problem: `${quoted(text)} is not true or false` };

const asDate: ParseValue = (text) => {
  if (/^\d+$/.test(text)) return { value: Number(text) };
  return OFFSET.test(text) && !Number.isNaN(Date.parse(text.replace(' ', 'T')))
    ? { value: text }
    : {
        problem: `${quoted(text)} is not a date-time with an offset (2026-05-01T09:00:00Z) or epoch milliseconds`,
      };
};

const asVersion: ParseValue = (text) =>
  VERSION.test(text)
    ? { value: text }
    : { problem: `${quoted(text)} is not a version such as 1.4 or 2.0.1-beta` };

const asText: ParseValue = (text) => ({ value: text });

/** How the pieces of a list are read, for an operator of `kind` (and "is one of"'s mode). */
export function parserFor(kind: ValueKind, mode: ScalarMode): ParseValue {
  if (kind === 'number') return asNumber;
  if (kind === 'date') return asDate;
  if (kind === 'version') return asVersion;
  if (kind === 'any') return mode === 'number' ? asNumber : mode === 'boolean' ? asBoolean : asText;
  return asText;
}

/** The mode that fits the values an "is one of" clause holds. */
export function modeOf(values: readonly unknown[]): ScalarMode {
  if (values.length > 0 && values.every((v) => typeof v === 'number')) return 'number';
  if (values.length > 0 && values.every((v) => typeof v === 'boolean')) return 'boolean';
  return 'text';
}

/** The values re-read in another mode; those that do not fit it are left out. */
export function convert(values: readonly unknown[], mode: ScalarMode): unknown[] {
  const parse = parserFor('any', mode);
  return values.flatMap((v) => {
    const read = parse(String(v));
    return 'value' in read ? [read.value] : [];
  });
}

/** A hint of what to type, per kind. */
export const VALUE_HINTS: Partial<Record<ValueKind, string>> = {
  date: 'Dates with an offset (2026-05-01T09:00:00Z) or epoch milliseconds.',
  version: 'Versions such as 1.4 or 2.0.1-beta (no leading v).',
  address: 'IP addresses or ranges: 10.0.0.0/8, 2001:db8::/32.',
  number: 'Numbers.',
};
