/**
 * A list of values as chips (a clause's values, a variant's target keys, a segment's users):
 * typed and added with Enter or a comma, or pasted as a comma- or newline-separated list of any
 * length (thousands of keys at once); duplicates are dropped and counted. Each chip has its own
 * remove button. A long list shows its count and the first matches of a search, never thousands
 * of chips at once. Values a list cannot take (not a number...) are named, not silently dropped.
 */
import { useId, useState } from 'preact/hooks';
import { number } from '../format.js';
import { valueText } from '../targeting/words.js';

/** Reads a typed piece of text as a value, or says why it is not one. */
export type ParseValue = (text: string) => { value: unknown } | { problem: string };

const asText: ParseValue = (text) => ({ value: text });

interface Props {
  label: string;
  values: readonly unknown[];
  onChange: (values: unknown[]) => void;
  parse?: ParseValue | undefined;
  /** "key"/"keys", "value"/"values" */
  noun?: [string, string];
  /** Chips shown before a search is needed. */
  shown?: number;
  /** A problem the server found with these values, shown with them. */
  error?: string | undefined;
  hint?: string;
}

const SPLIT = /[\r\n,]+/;

export function ChipsInput(props: Props) {
  const {
    label,
    values,
    onChange,
    parse = asText,
    noun = ['value', 'values'],
    shown = 40,
    error,
    hint,
  } = props;
  const id = useId();
  const [text, setText] = useState('');
  const [search, setSearch] = useState('');
  const [note, setNote] = useState<{ ok: string; problem: string }>({ ok: '', problem: '' });
  const count = (n: number) => `${number(n)} ${n === 1 ? noun[0] : noun[1]}`;

  /** Adds every piece of `pieces` it can; says what it added and what it could not. */
  const add = (pieces: string[]) => {
    const seen = new Set(values.map((v) => JSON.stringify(v)));
    const added: unknown[] = [];
    const problems: string[] = [];
    let repeated = 0;
    for (const piece of pieces) {
      const trimmed = piece.trim();
      if (trimmed === '') continue;
      const parsed = parse(trimmed);
      if ('problem' in parsed) {
        problems.push(parsed.problem);
        continue;
      }
      const json = JSON.stringify(parsed.value);
      if (seen.has(json)) repeated++;
      else {
        seen.add(json);
        added.push(parsed.value);
      }
    }
    if (added.length) onChange([...values, ...added]);
    const ok =
      pieces.length > 1 || repeated
        ? `Added ${count(added.length)}${repeated ? ` (${number(repeated)} already in the list)` : ''}.`
        : '';
    const problem = problems.length
      ? `Not added: ${problems.slice(0, 3).join('; ')}${problems.length > 3 ? ` and ${number(problems.length - 3)} more` : ''}.`
      : '';
    setNote({ ok, problem });
  };

  const commitTyped = () => {
    if (text.trim() === '') return;
    add([text]);
    setText('');
  };

  const remove = (i: number) => {
    onChange(values.filter((_, k) => k !== i));
    setNote({ ok: '', problem: '' });
    requestAnimationFrame(() => document.getElementById(`${id}-in`)?.focus());
  };

  const q = search.trim().toLowerCase();
  const indexed = values.map((value, i) => ({ value, i }));
  const matching =
    q === '' ? indexed : indexed.filter(({ value }) => String(value).toLowerCase().includes(q));
  const visible = matching.slice(0, shown);
  const described = [`${id}-count`, hint ? `${id}-hint` : '', error ? `${id}-err` : '']
    .filter(Boolean)
    .join(' ');

  return (
    <div class="chips field">
      <label for={`${id}-in`}>{label}</label>
      <input
        id={`${id}-in`}
        type="text"
        value={text}
        autocomplete="off"
        spellcheck={false}
        aria-describedby={described}
        aria-invalid={error ? 'true' : undefined}
        onInput={(e) => {
          const typed = e.currentTarget.value;
          if (!SPLIT.test(typed)) return setText(typed);
          const pieces = typed.split(SPLIT);
          setText(pieces.pop() ?? '');
          add(pieces);
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            commitTyped();
          }
        }}
        onBlur={commitTyped}
        onPaste={(e) => {
          const pasted = e.clipboardData?.getData('text') ?? '';
          if (!SPLIT.test(pasted)) return;
          // A single-line input would drop the line breaks: the list is split here instead.
          e.preventDefault();
          add((text + pasted).split(SPLIT));
          setText('');
        }}
      />
      {hint && (
        <small id={`${id}-hint`} class="hint">
          {hint}
        </small>
      )}
      <small id={`${id}-count`} class="hint count">
        {count(values.length)}
        {values.length > visible.length &&
          `; showing ${number(visible.length)}${q ? ` of ${number(matching.length)} matching` : ''}`}
      </small>
      <span role="status" class="note ok">
        {note.ok}
      </span>
      {note.problem && (
        <small role="alert" class="problem">
          {note.problem}
        </small>
      )}
      {error && (
        <small id={`${id}-err`} role="alert" class="problem">
          {error}
        </small>
      )}
      {values.length > shown && (
        <div class="row chip-tools">
          <div class="field grow">
            <label for={`${id}-q`}>Search the {noun[1]}</label>
            <input
              id={`${id}-q`}
              type="search"
              value={search}
              onInput={(e) => setSearch(e.currentTarget.value)}
            />
          </div>
          <button type="button" class="small" onClick={() => onChange([])}>
            Remove all {count(values.length)}
          </button>
        </div>
      )}
      {visible.length > 0 && (
        <ul class="chip-list" aria-label={`${label} (list)`}>
          {visible.map(({ value, i }) => {
            const shownText = typeof value === 'string' ? value : valueText(value);
            return (
              <li key={`${i}:${shownText}`} class="chip">
                <bdi>{shownText}</bdi>
                <button
                  type="button"
                  class="chip-remove"
                  aria-label={`Remove ${shownText} from ${label}`}
                  onClick={() => remove(i)}
                >
                  ×
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
