/**
 * "Changed elsewhere": an edit meets a version saved elsewhere since it began (a `412`, or a
 * change the live feed announced). Nothing is saved from here. What only they changed is taken
 * and what only you changed is kept, both listed; each field both changed shows the three
 * values (what the edit began from, theirs, yours) and is chosen: theirs, yours, or for a list
 * of keys both combined. "Review the result" then reviews it against their version, and the
 * save is made against that version (`If-Match`).
 */
import { useId, useState } from 'preact/hooks';
import type { Prerequisite, Rule, Serve, Target } from '../../src/core/targeting/types.js';
import type { LiveEdit } from '../screens/live-edit.js';
import { changesBetween, FIELD_NAMES, fieldChanges, keysText } from '../targeting/diff.js';
import { type Choice, combinable, sidesOf } from '../targeting/merge.js';
import { anyOf, ruleText, serveText, valueText } from '../targeting/words.js';
import { Dialog } from './dialog.js';
import { ChangeList } from './review-dialog.js';

type Fields = Record<string, unknown>;

/** A field's value in words. */
function shown(field: string, v: unknown): string {
  if (v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0)) return 'none';
  const list = v as unknown[];
  switch (field) {
    case 'targets':
      return (list as Target[]).map((t) => `${t.variant}: ${keysText(t.keys)}`).join('; ');
    case 'included':
    case 'excluded':
      return keysText(list as string[]);
    case 'rules':
      return (list as Rule[]).map((r, i) => `${i + 1}. ${ruleText(r)}`).join('; ');
    case 'prerequisites':
      return (list as Prerequisite[]).map((p) => `${p.flag} serves ${anyOf(p.variants)}`).join('; ');
    case 'fallthrough':
      return serveText(v as Serve);
    case 'enabled':
      return v ? 'on' : 'off';
    case 'percentage':
      return `${v}\u00a0%`;
    default:
      return valueText(v);
  }
}

/** Said when a merge leaves nothing to save. */
export const NOTHING_LEFT = 'Nothing left to save: it is as saved elsewhere.';

const LABELS: Record<Choice, string> = {
  theirs: 'Keep theirs',
  yours: 'Keep yours',
  combine: 'Combine both (the keys each side added and removed)',
};

interface Props<T, D> {
  /** "Flag banner" */
  what: string;
  /** The edit, with the version saved `elsewhere`. */
  live: LiveEdit<T, D>;
  toDraft: (value: T) => D;
  fields: readonly string[];
  segment?: boolean;
  /** Merged (the edit now goes on from their version): `true` when it still changes that version. */
  onMerged: (changes: boolean) => void;
  onClose: () => void;
}

export function MergeDialog<T, D>({
  what,
  live,
  toDraft,
  fields,
  segment = false,
  onMerged,
  onClose,
}: Props<T, D>) {
  const id = useId();
  const [choices, setChoices] = useState<Record<string, Choice>>({});
  if (!live.elsewhere || live.saved === undefined || !live.draft) return null;
  const [base, theirs, yours] = [
    toDraft(live.saved),
    toDraft(live.elsewhere.value),
    live.draft,
  ] as Fields[] as [Fields, Fields, Fields];
  const sides = sidesOf(base, theirs, yours, fields);
  const open = sides.both.filter((f) => !choices[f]);
  const said = (f: string, to: Fields) => fieldChanges(f, base[f] ?? null, to[f] ?? null, segment).join('; ');
  return (
    <Dialog title={`${what} was changed elsewhere`} onClose={onClose}>
      <div class="merge">
        <p>
          It was saved elsewhere while you were editing. Nothing of yours is saved yet: choose what to keep,
          then review the result against it as it is now.
        </p>
        {sides.theirs.length > 0 && (
          <>
            <h3>Their changes, taken</h3>
            <ChangeList changes={changesBetween(base, theirs, sides.theirs, segment)} />
          </>
        )}
        {sides.yours.length > 0 && (
          <>
            <h3>Your changes, kept</h3>
            <ChangeList changes={changesBetween(base, yours, sides.yours, segment)} />
          </>
        )}
        {sides.both.map((f) => (
          <fieldset key={f}>
            <legend>{FIELD_NAMES[f] ?? f}: changed on both sides</legend>
            <dl>
              <dt>You started from</dt>
              <dd>
                <bdi>{shown(f, base[f])}</bdi>
              </dd>
              <dt>Theirs</dt>
              <dd>
                <bdi>{shown(f, theirs[f])}</bdi> <span class="hint">({said(f, theirs)})</span>
              </dd>
              <dt>Yours</dt>
              <dd>
                <bdi>{shown(f, yours[f])}</bdi> <span class="hint">({said(f, yours)})</span>
              </dd>
            </dl>
            {(['theirs', 'yours', ...(combinable(f) ? ['combine' as const] : [])] as Choice[]).map((c) => (
              <label class="check" key={c}>
                <input
                  type="radio"
                  name={`${id}-${f}`}
                  checked={choices[f] === c}
                  onChange={() => setChoices((all) => ({ ...all, [f]: c }))}
                />
                {LABELS[c]}
              </label>
            ))}
          </fieldset>
        ))}
        {open.length > 0 && (
          <p class="hint" id={`${id}-open`}>
            Choose what to keep of each field changed on both sides.
          </p>
        )}
        <div class="actions">
          <button
            type="button"
            class="primary"
            disabled={open.length > 0}
            aria-describedby={open.length > 0 ? `${id}-open` : undefined}
            onClick={() => {
              const result = live.merge((f) => choices[f] ?? 'yours') as Fields;
              onMerged(changesBetween(theirs, result, fields, segment).length > 0);
            }}
          >
            Review the result
          </button>
          <button type="button" onClick={onClose}>
            Not now
          </button>
        </div>
      </div>
    </Dialog>
  );
}
