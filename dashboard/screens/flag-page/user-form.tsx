/**
 * A user to evaluate: a key and attributes, typed as fields (name and value; numbers and
 * true/false are read as such, quotes keep text) or as one JSON object. Either way the form
 * says at once what it cannot read.
 */

import { useId, useState } from 'preact/hooks';
import { isObject } from '../../../src/core/is-object.js';
import { replaced, without } from '../../targeting/draft.js';

export type UserAttributes = Record<string, unknown>;

interface Row {
  name: string;
  value: string;
}

/** A field's text as a value: JSON numbers, booleans, null and quoted text as such; else the text. */
export function fieldValue(text: string): unknown {
  const trimmed = text.trim();
  if (/^(?:-?\d|true$|false$|null$|")/.test(trimmed)) {
    try {
      return JSON.parse(trimmed);
    } catch {
      return text;
    }
  }
  return text;
}

const rowsOf = (attributes: UserAttributes): Row[] =>
  Object.entries(attributes).map(([name, value]) => ({
    name,
    value: typeof value === 'string' && fieldValue(value) === value ? value : JSON.stringify(value),
  }));

function attributesOf(rows: Row[]): UserAttributes {
  const out: UserAttributes = {};
  for (const row of rows) if (row.name.trim() !== '') out[row.name.trim()] = fieldValue(row.value);
  return out;
}

function parseJson(text: string): UserAttributes | string {
  if (text.trim() === '') return {};
  try {
    const value = JSON.parse(text) as unknown;
    if (isObject(value)) return value as UserAttributes;
    return 'The attributes must be one JSON object: {"email": "ann@example.com"}.';
  } catch (error) {
    return `Not JSON: ${(error as Error).message}`;
  }
}

interface Props {
  /** A user was given: key and attributes (`key` left out when empty). */
  onSubmit: (user: UserAttributes) => void;
  busy: boolean;
}

export function UserForm({ onSubmit, busy }: Props) {
  const id = useId();
  const [key, setKey] = useState('');
  const [mode, setMode] = useState<'fields' | 'json'>('fields');
  const [rows, setRows] = useState<Row[]>([{ name: '', value: '' }]);
  const [json, setJson] = useState('{}');
  const parsed = mode === 'json' ? parseJson(json) : attributesOf(rows);
  const problem = typeof parsed === 'string' ? parsed : undefined;

  const switchTo = (next: 'fields' | 'json') => {
    if (next === mode) return;
    if (next === 'json') setJson(JSON.stringify(attributesOf(rows), null, 2));
    else if (typeof parsed !== 'string') setRows([...rowsOf(parsed), { name: '', value: '' }]);
    setMode(next);
  };
  const submit = (e: Event) => {
    e.preventDefault();
    if (typeof parsed === 'string') return;
    onSubmit({ ...parsed, ...(key !== '' ? { key } : {}) });
  };

  return (
    <form class="stack user-form" onSubmit={submit}>
      <div class="row">
        <div class="field">
          <label for={`${id}-k`}>User key</label>
          <input
            id={`${id}-k`}
            type="text"
            value={key}
            autocomplete="off"
            spellcheck={false}
            onInput={(e) => setKey(e.currentTarget.value)}
          />
        </div>
        <fieldset class="inline">
          <legend>Attributes as</legend>
          <label class="check">
            <input
              type="radio"
              name={`${id}-mode`}
              checked={mode === 'fields'}
              onChange={() => switchTo('fields')}
            />
            Fields
          </label>
          <label class="check">
            <input
              type="radio"
              name={`${id}-mode`}
              checked={mode === 'json'}
              onChange={() => switchTo('json')}
            />
            JSON
          </label>
        </fieldset>
      </div>
      {mode === 'fields' ? (
        <div class="attribute-rows">
          {rows.map((row, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity but their place
            <div class="row" key={i}>
              <div class="field">
                <label for={`${id}-n${i}`}>Attribute {i + 1} name</label>
                <input
                  id={`${id}-n${i}`}
                  type="text"
                  list="attribute-names"
                  value={row.name}
                  spellcheck={false}
                  onInput={(e) => setRows(replaced(rows, i, { ...row, name: e.currentTarget.value }))}
                />
              </div>
              <div class="field grow">
                <label for={`${id}-v${i}`}>Attribute {i + 1} value</label>
                <input
                  id={`${id}-v${i}`}
                  type="text"
                  value={row.value}
                  spellcheck={false}
                  onInput={(e) => setRows(replaced(rows, i, { ...row, value: e.currentTarget.value }))}
                />
              </div>
              <button
                type="button"
                class="small"
                aria-label={`Remove attribute ${i + 1}`}
                onClick={() => setRows(without(rows, i))}
              >
                Remove
              </button>
            </div>
          ))}
          <small class="hint">
            Numbers, true and false are read as such; put text in quotes to keep it text ("42").
          </small>
          <button type="button" class="small" onClick={() => setRows([...rows, { name: '', value: '' }])}>
            Add attribute
          </button>
        </div>
      ) : (
        <div class="field">
          <label for={`${id}-j`}>Attributes (a JSON object)</label>
          <textarea
            id={`${id}-j`}
            rows={4}
            class="mono"
            spellcheck={false}
            value={json}
            aria-invalid={problem ? 'true' : undefined}
            aria-describedby={problem ? `${id}-jp` : undefined}
            onInput={(e) => setJson(e.currentTarget.value)}
          />
          {problem && (
            <small id={`${id}-jp`} role="alert" class="problem">
              {problem}
            </small>
          )}
        </div>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy || problem !== undefined}>
          Show who gets what
        </button>
      </div>
    </form>
  );
}
