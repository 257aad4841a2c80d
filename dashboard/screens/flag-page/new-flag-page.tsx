/**
 * `#/env/P/E/new-flag`: a flag that serves values (`string`, `number` or `json`,
 * `docs/protocol.md` §12.1): its key, its variants (a name and a value each, edited as the type
 * asks), the off variant and the default one. Variants are fixed once created, so they are set
 * here; targeting is then edited on the flag's own page, where the new flag opens.
 *
 * `#/env/P/E/new-flag/KEY` (from a key SDKs evaluated that is not a flag, on the Usage tab): the
 * same page with KEY filled in, still editable and checked as typed, and `boolean` and `rollout`
 * offered too (first, as most flags are), since the code may read the key with any of them.
 */
import { useId, useState } from 'preact/hooks';
import { DESCRIPTION_MAX_LENGTH } from '../../../src/core/limits.js';
import { NAME_PATTERN } from '../../../src/core/targeting/validate-shape.js';
import type { AnyFlagType, CreateFlagInput, ValueFlagType } from '../../../src/core/types.js';
import { api, envApi } from '../../api.js';
import { CharCount, overBy } from '../../components/char-count.js';
import { InitialPercent } from '../../components/initial-percent.js';
import { KeyField, keyProblem, keyUsable } from '../../components/key-field.js';
import { ErrorText } from '../../components/page-parts.js';
import { RoleNote } from '../../components/role-note.js';
import { useCan } from '../../roles.js';
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

const TYPES: Record<AnyFlagType, string> = {
  boolean: 'on or off (boolean)',
  rollout: 'on for a percentage of users (rollout)',
  string: 'text (string)',
  number: 'numbers (number)',
  json: 'JSON (json)',
};

interface Props {
  project: string;
  env: string;
  /** The key to start with (`#/env/P/E/new-flag/KEY`): every type is offered then. */
  initialKey?: string | undefined;
}

export function NewFlagPage({ project, env, initialKey }: Props) {
  const id = useId();
  const [key, setKey] = useState(initialKey ?? '');
  const [type, setType] = useState<AnyFlagType>(initialKey === undefined ? 'string' : 'boolean');
  const [percent, setPercent] = useState('0');
  const [description, setDescription] = useState('');
  const [rows, setRows] = useState<Row[]>(STARTERS.string);
  const [offVariant, setOff] = useState(0);
  const [fallthrough, setFallthrough] = useState(0);
  const { busy, error, run } = useAction();
  const editor = useCan(project, 'editor');

  const problem = keyProblem(key, [], 'Flag');
  const names = rows.map((r) => r.name);
  const nameProblem = (name: string, i: number) =>
    !NAME_PATTERN.test(name)
      ? 'Up to 64 letters, digits, ".", "_" or "-".'
      : names.indexOf(name) !== i
        ? 'Another variant has this name.'
        : undefined;
  const valueType = type === 'boolean' || type === 'rollout' ? undefined : type;
  const values = rows.map((r) => readValue(valueType ?? 'string', r.text));
  const percentOk = type !== 'rollout' || (/^\d{1,3}$/.test(percent) && Number(percent) <= 100);
  const ready =
    keyUsable(key, problem) &&
    overBy(description, DESCRIPTION_MAX_LENGTH) === 0 &&
    percentOk &&
    (valueType === undefined ||
      (rows.every((r, i) => !nameProblem(r.name, i)) && values.every((v) => 'value' in v)));
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
      ...(valueType
        ? { variants, offVariant: rows[offVariant]!.name, fallthrough: { variant: rows[fallthrough]!.name } }
        : type === 'rollout'
          ? { percentage: Number(percent) }
          : {}),
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
      {initialKey === undefined ? (
        <h2>New flag with variants</h2>
      ) : (
        <>
          <h2>New flag</h2>
          <p>
            SDKs evaluated <bdi class="mono">{initialKey}</bdi> in this environment, where it is not a flag,
            so they get the default value their code gives. Choose the type the code reads it as:{' '}
            <code>isEnabled</code> on or off (or a rollout), <code>getString</code> text,{' '}
            <code>getNumber</code> numbers, <code>getJson</code> JSON.
          </p>
        </>
      )}
      <RoleNote allowed={editor} what="Creating flags" />
      <form class="panel stack" onSubmit={submit}>
        <div class="row">
          <KeyField label="Flag key" value={key} problem={problem} onInput={setKey} />
          <div class="field">
            <label for={`${id}-t`}>Values are</label>
            <select
              id={`${id}-t`}
              value={type}
              onChange={(e) => {
                const next = e.currentTarget.value as AnyFlagType;
                setType(next);
                if (next !== 'boolean' && next !== 'rollout') setRows(STARTERS[next]);
                setOff(0);
                setFallthrough(0);
              }}
            >
              {(Object.keys(TYPES) as AnyFlagType[])
                .filter((t) => initialKey !== undefined || (t !== 'boolean' && t !== 'rollout'))
                .map((t) => (
                  <option key={t} value={t}>
                    {TYPES[t]}
                  </option>
                ))}
            </select>
          </div>
          {type === 'rollout' && (
            <InitialPercent id={id} value={percent} ok={percentOk} onInput={setPercent} />
          )}
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
        {valueType && (
          <>
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
                      type={valueType}
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
          </>
        )}
        <ErrorText message={error} />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy || !ready || !editor.ok} title={editor.reason}>
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
