/**
 * What a rule or the default rule serves: one variant, or a percentage split of the users by an
 * attribute (`docs/protocol.md` §12.1). A split has one share per variant (and, in a rule, one
 * for "go on to the next rule"); every share but the last is typed, the last is the rest, so
 * the split always makes exactly 100 %.
 */
import { useId } from 'preact/hooks';
import type { Serve, SplitSlice } from '../../../src/core/targeting/types.js';
import { PercentInput } from '../../components/percent-input.js';
import { percentText } from '../../targeting/words.js';

const TOTAL = 100_000;

interface Props {
  /** "Rule 2 serves" */
  name: string;
  serve: Serve;
  variants: readonly string[];
  /** In a rule, a share may go on to the next rule (`null`). */
  inRule: boolean;
  onChange: (serve: Serve) => void;
  error: string | undefined;
}

/** The split as one share per row: each variant, then (in a rule) `null`. */
function rowsOf(serve: Serve, variants: readonly string[], inRule: boolean): SplitSlice[] {
  const names: Array<string | null> = [...variants, ...(inRule ? [null] : [])];
  const weights = new Map<string | null, number>();
  if ('split' in serve)
    for (const s of serve.split) weights.set(s.variant, (weights.get(s.variant) ?? 0) + s.weight);
  else weights.set(serve.variant, TOTAL);
  return names.map((variant) => ({ variant, weight: weights.get(variant) ?? 0 }));
}

/** Shares evenly over the variants (the rest of a division to the last), none to the next rule. */
function even(rows: SplitSlice[]): SplitSlice[] {
  const variants = rows.filter((r) => r.variant !== null).length;
  const share = Math.floor(TOTAL / variants);
  let given = 0;
  return rows.map((r, i) => {
    if (r.variant === null) return { ...r, weight: 0 };
    const last = rows.slice(i + 1).every((x) => x.variant === null);
    const weight = last ? TOTAL - given : share;
    given += weight;
    return { ...r, weight };
  });
}

const bucketText = (by: string | string[] | undefined): string =>
  by === undefined ? '' : Array.isArray(by) ? by.join(', ') : by;

export function ServeEditor({ name, serve, variants, inRule, onChange, error }: Props) {
  const id = useId();
  const split = 'split' in serve;
  const rows = rowsOf(serve, variants, inRule);
  const setRows = (next: SplitSlice[]) => {
    const rest = TOTAL - next.slice(0, -1).reduce((sum, r) => sum + r.weight, 0);
    const slices = next.map((r, i) => (i === next.length - 1 ? { ...r, weight: rest } : r));
    onChange({ ...(split ? serve : {}), split: slices } as Serve);
  };
  const setBucket = (text: string) => {
    if (!('split' in serve)) return;
    const names = text
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const { bucketBy: _, ...rest } = serve;
    onChange(names.length === 0 ? rest : { ...rest, bucketBy: names.length === 1 ? names[0]! : names });
  };
  const last = rows.length - 1;
  const typed = rows.slice(0, -1).reduce((sum, r) => sum + r.weight, 0);

  return (
    <fieldset class="serve">
      <legend>{name}</legend>
      <div class="row">
        <label class="check">
          <input
            type="radio"
            name={`${id}-kind`}
            checked={!split}
            onChange={() =>
              onChange({
                variant:
                  rows.reduce((a, b) => (b.weight > a.weight && b.variant ? b : a)).variant ?? variants[0]!,
              })
            }
          />
          One variant
        </label>
        <label class="check">
          <input
            type="radio"
            name={`${id}-kind`}
            checked={split}
            onChange={() => onChange({ split: even(rows) })}
          />
          A percentage split
        </label>
      </div>
      {!split ? (
        <div class="field fit">
          <label for={`${id}-v`}>Variant</label>
          <select
            id={`${id}-v`}
            value={serve.variant}
            onChange={(e) => onChange({ variant: e.currentTarget.value })}
          >
            {variants.map((v) => (
              <option key={v} value={v}>
                {v}
              </option>
            ))}
          </select>
        </div>
      ) : (
        <>
          <ul class="split-rows">
            {rows.map((row, i) => {
              const label = row.variant ?? 'No variant: go on to the next rule';
              return (
                <li key={row.variant ?? ''}>
                  {i === last ? (
                    <span class="percent">
                      <span>{label}</span>
                      <output class="rest">{percentText(row.weight)}</output>
                      <span class="hint-inline">(the rest)</span>
                    </span>
                  ) : (
                    <PercentInput
                      label={label}
                      value={row.weight}
                      max={TOTAL - (typed - row.weight)}
                      onChange={(weight) => setRows(rows.map((r, k) => (k === i ? { ...r, weight } : r)))}
                    />
                  )}
                </li>
              );
            })}
          </ul>
          <div class="row">
            <div class="field">
              <label for={`${id}-b`}>Split users by attribute</label>
              <input
                id={`${id}-b`}
                type="text"
                list="attribute-names"
                value={bucketText(serve.bucketBy)}
                placeholder="key"
                spellcheck={false}
                aria-describedby={`${id}-bh`}
                onChange={(e) => setBucket(e.currentTarget.value)}
              />
              <small id={`${id}-bh`} class="hint">
                Users with the same value get the same variant. Empty: the user key.
              </small>
            </div>
            <button type="button" class="small" onClick={() => setRows(even(rows))}>
              Split evenly
            </button>
          </div>
        </>
      )}
      {error && (
        <p role="alert" class="problem">
          {error}
        </p>
      )}
    </fieldset>
  );
}
