/**
 * Prerequisites: other flags that must serve one of the chosen variants to the user first, or
 * this flag serves its off variant (`docs/protocol.md` §12.1). Each is a flag of the environment
 * and checkboxes of its variants.
 */
import { useId } from 'preact/hooks';
import type { Prerequisite } from '../../../src/core/targeting/types.js';
import { inside, replaced, variantNames, without } from '../../targeting/draft.js';
import type { Flag } from '../../types.js';

interface Props {
  self: string;
  flags: readonly Flag[];
  prerequisites: readonly Prerequisite[];
  onChange: (prerequisites: Prerequisite[]) => void;
  error: { path: string; reason: string } | undefined;
}

export function PrerequisitesEditor({ self, flags, prerequisites, onChange, error }: Props) {
  const id = useId();
  const others = flags.filter((f) => f.key !== self);
  const variantsOf = (key: string) => {
    const flag = others.find((f) => f.key === key);
    return flag ? variantNames(flag) : [];
  };
  const first = others.find((f) => !prerequisites.some((p) => p.flag === f.key));
  const add = () => {
    if (!first) return;
    onChange([...prerequisites, { flag: first.key, variants: [variantNames(first)[0]!] }]);
    requestAnimationFrame(() => document.getElementById(`${id}-${prerequisites.length}`)?.focus());
  };
  const other =
    error && !prerequisites.some((_, i) => inside(error.path, `prerequisites[${i}]`))
      ? error.reason
      : undefined;
  return (
    <div class="prerequisites">
      {prerequisites.length === 0 && <p class="hint">None: the flag does not depend on another.</p>}
      {prerequisites.map((p, i) => {
        const mine = error && inside(error.path, `prerequisites[${i}]`) ? error.reason : undefined;
        const set = (next: Prerequisite) => onChange(replaced(prerequisites, i, next));
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: prerequisites have no ids; one flag appears once
          <fieldset key={`${i}:${p.flag}`} class="prerequisite">
            <legend>Prerequisite {i + 1}</legend>
            <div class="row">
              <div class="field">
                <label for={`${id}-${i}`}>Flag</label>
                <select
                  id={`${id}-${i}`}
                  value={p.flag}
                  onChange={(e) => {
                    const flag = e.currentTarget.value;
                    set({ flag, variants: variantsOf(flag).slice(0, 1) });
                  }}
                >
                  {[...new Set([p.flag, ...others.map((f) => f.key)])].map((k) => (
                    <option key={k} value={k}>
                      {k}
                    </option>
                  ))}
                </select>
              </div>
              <fieldset class="inline">
                <legend>must serve</legend>
                {variantsOf(p.flag).map((v) => (
                  <label key={v} class="check">
                    <input
                      type="checkbox"
                      checked={p.variants.includes(v)}
                      onChange={(e) =>
                        set({
                          ...p,
                          variants: e.currentTarget.checked
                            ? [...p.variants, v]
                            : p.variants.filter((x) => x !== v),
                        })
                      }
                    />
                    {v}
                  </label>
                ))}
              </fieldset>
              <button
                type="button"
                class="small"
                aria-label={`Remove prerequisite ${i + 1}`}
                onClick={() => onChange(without(prerequisites, i))}
              >
                Remove
              </button>
            </div>
            {mine && (
              <p role="alert" class="problem">
                {mine}
              </p>
            )}
          </fieldset>
        );
      })}
      {other && (
        <p role="alert" class="problem">
          {other}
        </p>
      )}
      <button type="button" onClick={add} disabled={!first}>
        Add prerequisite
      </button>
    </div>
  );
}
