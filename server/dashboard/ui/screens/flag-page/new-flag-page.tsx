/**
 * `#/env/P/E/new-flag`: a flag that serves values (`string`, `number` or `json`,
 * `docs/protocol.md` §12.1): its key, its variants (a name and a value each, edited as the type
 * asks), the off variant and the default one. Variants are fixed once created, so they are set
 * here; targeting is then edited on the flag's own page, where the new flag opens.
 */
import { useId, useState } from 'preact/hooks';
import { DESCRIPTION_MAX_LENGTH } from '../../../../../src/core/limits.js';
import { NAME_PATTERN } from '../../../../../src/core/targeting/validate-shape.js';
import type { CreateFlagInput, ValueFlagType } from '../../../../../src/core/types.js';
import { api, envApi } from '../../api.js';
import { ErrorText } from '../../components/bits.js';
import { CharCount, overBy } from '../../components/char-count.js';
import { KeyField, keyProblem, keyUsable } from '../../components/key-field.js';
import { envHref, navigate } from '../../route.js';
import type { Flag } from '../../types.js';
import { useAction } from '../../use-action.js';
import { readValue, ValueEditor } from './value-editor.js';

interface Row {
  name: string;
  text: string;
}

const STARTERS: Record<ValueFlagType, Row[]> = {
  string: [
    { name: 'control', text: '' },
    { name: 'treatment', text: '' },
  ],
  number: [
    { name: 'low', text: '0' },
    { name: 'high', text: '1' },
  ],
  json: [
    { name: 'off', text: '{}' },
    { name: 'on', text: '{"enabled": true}' },
  ],
};

export function NewFlagPage({ project, env }: { project: string; env: string }) {
  const id = useId();
  const [key, setKey] = useState('');
  const [type, setType] = useState<ValueFlagType>('string');
  const [description, setDescription] = useState('');
  const [rows, setRows] = useState<Row[]>(STARTERS.string);
  const [offVariant, setOff] = useState(0);
  const [fallthrough, setFallthrough] = useState(0);
  const { busy, error, run } = useAction();

  const problem = keyProblem(key, [], 'Flag');
  const names = rows.map((r) => r.name);
  const nameProblem = (name: string, i: number) =>
    !NAME_PATTERN.test(name)
      ? 'Up to 64 letters, digits, ".", "_" or "-".'
      : names.indexOf(name) !== i
        ? 'Another variant has this name.'
        : undefined;
  const values = rows.map((r) => readValue(type, r.text));
  const ready =
    keyUsable(key, problem) &&
    overBy(description, DESCRIPTION_MAX_LENGTH) === 0 &&
    rows.every((r, i) => !nameProblem(r.name, i)) &&
    values.every((v) => 'value' in v);
  const setRow = (i: number, row: Row) => setRows(rows.map((r, k) => (k === i ? row : r)));
  const remove = (i: number) => {
    setRows(rows.filter((_, k) => k !== i));
    setOff((o) => (o === i ? 0 : o > i ? o - 1 : o));
    setFallthrough((f) => (f === i ? 0 : f > i ? f - 1 : f));
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    if (!ready) return;
    const variants: Record<string, unknown> = {};
    rows.forEach((r, i) => {
      variants[r.name] = (values[i] as { value: unknown }).value;
    });
    const body = {
      key,
      type,
      variants,
      offVariant: rows[offVariant]!.name,
      fallthrough: { variant: rows[fallthrough]!.name },
      ...(description.trim() ? { description } : {}),
    } as CreateFlagInput;
    await run(async () => {
      const flag = await api<Flag>(envApi(project, env, 'flags'), { method: 'POST', body });
      navigate(envHref(project, env, 'flags', flag.key));
    });
  };

  return (
    <>
      <p>
        <a href={envHref(project, env, 'flags')}>← All flags</a>
      </p>
      <h2>New flag with variants</h2>
      <form class="panel stack" onSubmit={submit}>
        <div class="row">
          <KeyField label="Flag key" value={key} problem={problem} onInput={setKey} />
          <div class="field">
            <label for={`${id}-t`}>Values are</label>
            <select
              id={`${id}-t`}
              value={type}
              onChange={(e) => {
                const next = e.currentTarget.value as ValueFlagType;
                setType(next);
                setRows(STARTERS[next]);
                setOff(0);
                setFallthrough(0);
              }}
            >
              <option value="string">text (string)</option>
              <option value="number">numbers (number)</option>
              <option value="json">JSON (json)</option>
            </select>
          </div>
        </div>
        <div class="field">
          <label for={`${id}-d`}>Flag description</label>
          <textarea
            id={`${id}-d`}
            rows={2}
            value={description}
            aria-describedby={`${id}-dc`}
            onInput={(e) => setDescription(e.currentTarget.value)}
          />
          <CharCount id={`${id}-dc`} text={description} max={DESCRIPTION_MAX_LENGTH} />
        </div>
        <fieldset>
          <legend>Variants (fixed once the flag is created)</legend>
          {rows.map((row, i) => {
            const bad = nameProblem(row.name, i);
            return (
              // biome-ignore lint/suspicious/noArrayIndexKey: a variant's place is its identity while its name is typed
              <div class="row variant-row" key={i}>
                <div class="field">
                  <label for={`${id}-n${i}`}>Variant {i + 1} name</label>
                  <input
                    id={`${id}-n${i}`}
                    type="text"
                    value={row.name}
                    spellcheck={false}
                    aria-invalid={bad ? 'true' : undefined}
                    aria-describedby={bad ? `${id}-np${i}` : undefined}
                    onInput={(e) => setRow(i, { ...row, name: e.currentTarget.value })}
                  />
                  {bad && (
                    <small id={`${id}-np${i}`} class="problem">
                      {bad}
                    </small>
                  )}
                </div>
                <ValueEditor
                  type={type}
                  label={`Variant ${i + 1} value`}
                  text={row.text}
                  onInput={(text) => setRow(i, { ...row, text })}
                />
                <button
                  type="button"
                  class="small"
                  disabled={rows.length === 1}
                  aria-label={`Remove variant ${i + 1}`}
                  onClick={() => remove(i)}
                >
                  Remove
                </button>
              </div>
            );
          })}
          <button
            type="button"
            class="small"
            disabled={rows.length >= 100}
            onClick={() =>
              setRows([
                ...rows,
                {
                  name: `variant-${rows.length + 1}`,
                  text: type === 'json' ? '{}' : type === 'number' ? '0' : '',
                },
              ])
            }
          >
            Add variant
          </button>
        </fieldset>
        <div class="row">
          <VariantChoice
            label="Off variant (the flag is off)"
            names={names}
            value={offVariant}
            onChange={setOff}
          />
          <VariantChoice
            label="Default variant (no target or rule matched)"
            names={names}
            value={fallthrough}
            onChange={setFallthrough}
          />
        </div>
        <ErrorText message={error} />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy || !ready}>
            Create flag
          </button>
          <span class="hint">It starts off; its targeting opens next.</span>
        </div>
      </form>
    </>
  );
}

function VariantChoice(props: {
  label: string;
  names: string[];
  value: number;
  onChange: (i: number) => void;
}) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select
        id={id}
        value={String(props.value)}
        onChange={(e) => props.onChange(Number(e.currentTarget.value))}
      >
        {props.names.map((n, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: variants are chosen by place while their names are typed
          <option key={i} value={String(i)}>
            {n || `(variant ${i + 1})`}
          </option>
        ))}
      </select>
    </div>
  );
}
