/**
 * Individual targets: for each variant, the user keys that get it whatever the rules say
 * (`docs/protocol.md` §12.1), as chips (paste a list of keys). A key listed under two variants
 * gets the first; the page says so.
 */
import type { Target } from '../../../src/core/targeting/types.js';
import { ChipsInput } from '../../components/chips-input.js';
import { inside } from '../../targeting/draft.js';

interface Props {
  variants: readonly string[];
  targets: readonly Target[];
  onChange: (targets: Target[]) => void;
  error: { path: string; reason: string } | undefined;
}

export function TargetsEditor({ variants, targets, onChange, error }: Props) {
  const keysOf = (variant: string) => targets.filter((t) => t.variant === variant).flatMap((t) => t.keys);
  const set = (variant: string, keys: string[]) =>
    onChange(
      variants.flatMap((v) => {
        const list = v === variant ? keys : keysOf(v);
        return list.length ? [{ variant: v, keys: list }] : [];
      }),
    );
  const errorOf = (variant: string) => {
    const at = targets.findIndex((t) => t.variant === variant);
    return error && at >= 0 && inside(error.path, `targets[${at}]`) ? error.reason : undefined;
  };
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const t of targets) for (const k of t.keys) (seen.has(k) ? twice : seen).add(k);
  const other =
    error && !targets.some((_, i) => inside(error.path, `targets[${i}]`)) ? error.reason : undefined;
  return (
    <div class="targets">
      {variants.map((variant) => (
        <ChipsInput
          key={variant}
          label={`Users who get ${variant}`}
          values={keysOf(variant)}
          noun={['key', 'keys']}
          onChange={(keys) => set(variant, keys as string[])}
          error={errorOf(variant)}
        />
      ))}
      {twice.size > 0 && (
        <p class="hint">
          Listed under two variants, a user gets the first: <bdi>{[...twice].slice(0, 5).join(', ')}</bdi>
          {twice.size > 5 ? ` and ${twice.size - 5} more` : ''}.
        </p>
      )}
      {other && (
        <p role="alert" class="problem">
          {other}
        </p>
      )}
    </div>
  );
}
