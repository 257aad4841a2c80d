/**
 * One condition of a rule: attribute, operator in words, values (chips; one pattern for
 * "matches"; a segment picker for "is in segment"; nothing for "is set"), and the "not" and
 * "ignore case" options. The server's refusal of this condition is shown inside it.
 */
import { useId } from 'preact/hooks';
import type { Clause, ClauseOperator } from '../../src/core/targeting/types.js';
import { envHref } from '../route.js';
import { convert, modeOf, parserFor, type ScalarMode, VALUE_HINTS } from '../targeting/values.js';
import { OPERATORS, operatorOf } from '../targeting/words.js';
import { ChipsInput } from './chips-input.js';

export interface ClauseContext {
  project: string;
  env: string;
  /** The environment's segment keys (for "is in segment"); `undefined` where segments are not allowed. */
  segments: readonly string[] | undefined;
}

interface Props {
  clause: Clause;
  /** "Condition 2 of rule 1" */
  name: string;
  context: ClauseContext;
  onChange: (clause: Clause) => void;
  onRemove: () => void;
  /** The server's refusal of this condition: the part of it named, and why. */
  error: { part: string; reason: string } | undefined;
}

/** The clause for operator `op`, keeping what still fits. */
function withOperator(clause: Clause, op: ClauseOperator): Clause {
  const before = operatorOf(clause.op)?.kind;
  const after = operatorOf(op)!;
  const next: Clause = { op, values: before === after.kind ? clause.values : [] };
  if (op !== 'inSegment') next.attribute = clause.attribute ?? '';
  if (clause.negate) next.negate = true;
  if (clause.caseInsensitive && after.caseOption) next.caseInsensitive = true;
  if (after.kind === 'pattern') next.values = clause.values.slice(0, 1);
  return next;
}

/** `flag` set when on, left out when off (as the server keeps it). */
function withFlag(clause: Clause, flag: 'negate' | 'caseInsensitive', on: boolean): Clause {
  const next = { ...clause };
  if (on) next[flag] = true;
  else delete next[flag];
  return next;
}

export function ClauseEditor({ clause, name, context, onChange, onRemove, error }: Props) {
  const id = useId();
  const words = operatorOf(clause.op);
  const kind = words?.kind ?? 'any';
  const mode = modeOf(clause.values);
  const errorAt = (part: string) => (error?.part.startsWith(part) ? error.reason : undefined);
  const attributeError = errorAt('attribute');
  const valuesError = errorAt('values');
  const other = error && !attributeError && !valuesError ? error.reason : undefined;

  return (
    <fieldset class="clause">
      <legend>{name}</legend>
      <div class="row">
        {clause.op !== 'inSegment' && (
          <div class="field">
            <label for={`${id}-a`}>Attribute</label>
            <input
              id={`${id}-a`}
              type="text"
              list="attribute-names"
              class="attribute"
              value={clause.attribute ?? ''}
              autocomplete="off"
              spellcheck={false}
              aria-invalid={attributeError ? 'true' : undefined}
              aria-describedby={attributeError ? `${id}-ae` : undefined}
              onInput={(e) => onChange({ ...clause, attribute: e.currentTarget.value })}
            />
            {attributeError && (
              <small id={`${id}-ae`} role="alert" class="problem">
                {attributeError}
              </small>
            )}
          </div>
        )}
        <div class="field">
          <label for={`${id}-o`}>Operator</label>
          <select
            id={`${id}-o`}
            value={clause.op}
            onChange={(e) => onChange(withOperator(clause, e.currentTarget.value as ClauseOperator))}
          >
            {OPERATORS.filter((w) => w.op !== 'inSegment' || context.segments !== undefined).map((w) => (
              <option key={w.op} value={w.op}>
                {w.words}
              </option>
            ))}
          </select>
        </div>
        {kind === 'any' && (
          <div class="field">
            <label for={`${id}-m`}>Values are</label>
            <select
              id={`${id}-m`}
              value={mode}
              onChange={(e) =>
                onChange({ ...clause, values: convert(clause.values, e.currentTarget.value as ScalarMode) })
              }
            >
              <option value="text">text</option>
              <option value="number">numbers</option>
              <option value="boolean">true or false</option>
            </select>
          </div>
        )}
      </div>
      {kind === 'segment' ? (
        <SegmentPicker clause={clause} context={context} onChange={onChange} error={valuesError} />
      ) : kind === 'pattern' ? (
        <div class="field">
          <label for={`${id}-p`}>Pattern (RE2 syntax)</label>
          <input
            id={`${id}-p`}
            type="text"
            class="mono"
            value={String(clause.values[0] ?? '')}
            spellcheck={false}
            aria-invalid={valuesError ? 'true' : undefined}
            aria-describedby={valuesError ? `${id}-pe` : undefined}
            onInput={(e) => onChange({ ...clause, values: [e.currentTarget.value] })}
          />
          {valuesError && (
            <small id={`${id}-pe`} role="alert" class="problem">
              {valuesError}
            </small>
          )}
        </div>
      ) : kind !== 'none' ? (
        <ChipsInput
          label="Values"
          values={clause.values}
          parse={parserFor(kind, mode)}
          onChange={(values) => onChange({ ...clause, values })}
          error={valuesError}
          hint={`Enter or a comma adds one; paste a list of many (comma- or newline-separated).${VALUE_HINTS[kind] ? ` ${VALUE_HINTS[kind]}` : ''}`}
        />
      ) : null}
      <div class="row clause-options">
        <label class="check">
          <input
            type="checkbox"
            checked={clause.negate === true}
            onChange={(e) => onChange(withFlag(clause, 'negate', e.currentTarget.checked))}
          />
          Not (the opposite: {words?.negated ?? 'not'})
        </label>
        {words?.caseOption && (
          <label class="check">
            <input
              type="checkbox"
              checked={clause.caseInsensitive === true}
              onChange={(e) => onChange(withFlag(clause, 'caseInsensitive', e.currentTarget.checked))}
            />
            Ignore case
          </label>
        )}
        <button type="button" class="small" aria-label={`Remove ${name.toLowerCase()}`} onClick={onRemove}>
          Remove condition
        </button>
      </div>
      {other && (
        <p role="alert" class="problem">
          {other}
        </p>
      )}
    </fieldset>
  );
}

function SegmentPicker({
  clause,
  context,
  onChange,
  error,
}: {
  clause: Clause;
  context: ClauseContext;
  onChange: (c: Clause) => void;
  error: string | undefined;
}) {
  const segments = context.segments ?? [];
  const chosen = new Set(clause.values.map(String));
  const listed = [...new Set([...segments, ...chosen])];
  const toggle = (key: string, on: boolean) =>
    onChange({ ...clause, values: on ? [...clause.values, key] : clause.values.filter((v) => v !== key) });
  return (
    <fieldset class="segment-picker">
      <legend>Segments (the user is in any of them)</legend>
      {listed.length === 0 ? (
        <p class="hint">
          No segments yet. <a href={envHref(context.project, context.env, 'segments')}>Create a segment</a>
        </p>
      ) : (
        listed.map((key) => (
          <label key={key} class="check">
            <input
              type="checkbox"
              checked={chosen.has(key)}
              onChange={(e) => toggle(key, e.currentTarget.checked)}
            />
            <bdi>{key}</bdi>
            {!segments.includes(key) && <span class="problem"> (no such segment)</span>}
          </label>
        ))
      )}
      {error && (
        <small role="alert" class="problem">
          {error}
        </small>
      )}
    </fieldset>
  );
}
