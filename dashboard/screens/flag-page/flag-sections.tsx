/**
 * The flag page's sections, in the order evaluation reads them (`docs/protocol.md` §12.4): on or
 * off, variants and the off variant, prerequisites, individual targets, rules, the default rule.
 * Each shows the server's refusal of its part (`refusal`, by JSON path).
 */
import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';
import type { Rule } from '../../../src/core/targeting/types.js';
import { emptyClause, RulesEditor } from '../../components/rules-editor.js';
import { Switch } from '../../components/switch.js';
import { type Draft, inside, newRuleId, variantNames } from '../../targeting/draft.js';
import type { Flag } from '../../types.js';
import { PrerequisitesEditor } from './prerequisites-editor.js';
import { ServeEditor } from './serve-editor.js';
import { TargetsEditor } from './targets-editor.js';
import { VariantsView } from './variants-view.js';

interface Props {
  project: string;
  env: string;
  flag: Flag;
  draft: Draft;
  setDraft: (update: (d: Draft) => Draft) => void;
  flags: readonly Flag[];
  segments: readonly string[];
  refusal: { path: string; reason: string } | undefined;
  marks: ReadonlyMap<number, string>;
}

/** A titled part of the page. */
export function Section({
  title,
  hint,
  children,
}: {
  title: string;
  hint?: string;
  children: ComponentChildren;
}) {
  const id = useId();
  return (
    <section class="panel" aria-labelledby={id}>
      <h3 id={id}>{title}</h3>
      {hint && <p class="hint">{hint}</p>}
      {children}
    </section>
  );
}

export function FlagSections(props: Props) {
  const { project, env, flag, draft, setDraft, flags, segments, refusal, marks } = props;
  const id = useId();
  const variants = variantNames(flag);
  const within = (prefix: string) => (refusal && inside(refusal.path, prefix) ? refusal : undefined);
  const reason = (prefix: string) => within(prefix)?.reason;
  const set = <K extends keyof Draft>(field: K, value: Draft[K]) =>
    setDraft((d) => ({ ...d, [field]: value }));
  const off = flag.type === 'boolean' || flag.type === 'rollout' ? 'off' : (draft.offVariant ?? variants[0]!);

  return (
    <>
      <Section
        title="On or off"
        hint={`When off, everyone gets the off variant (${off}); the rules below are kept.`}
      >
        <Switch label={`Flag ${flag.key} on`} checked={draft.enabled} onChange={(on) => set('enabled', on)} />
      </Section>
      <Section title="Variants" hint="What the flag can serve. Variants are fixed when the flag is created.">
        <VariantsView flag={flag} />
        {draft.offVariant !== undefined && (
          <div class="field fit">
            <label for={`${id}-off`}>Off variant (served when the flag is off or a prerequisite fails)</label>
            <select
              id={`${id}-off`}
              value={draft.offVariant}
              onChange={(e) => set('offVariant', e.currentTarget.value)}
            >
              {variants.map((v) => (
                <option key={v} value={v}>
                  {v}
                </option>
              ))}
            </select>
            {reason('offVariant') && (
              <small role="alert" class="problem">
                {reason('offVariant')}
              </small>
            )}
          </div>
        )}
      </Section>
      <Section
        title="Prerequisites"
        hint="Other flags that must serve one of the chosen variants to the user first; otherwise the off variant."
      >
        <PrerequisitesEditor
          self={flag.key}
          flags={flags}
          prerequisites={draft.prerequisites}
          onChange={(p) => set('prerequisites', p)}
          error={within('prerequisites')}
        />
      </Section>
      <Section
        title="Individual targets"
        hint="Users who get a variant whatever the rules say, by their key."
      >
        <TargetsEditor
          variants={variants}
          targets={draft.targets}
          onChange={(t) => set('targets', t)}
          error={within('targets')}
        />
      </Section>
      <Section
        title="Rules"
        hint="Checked in order; the first that matches decides. A rule without conditions matches everyone."
      >
        <RulesEditor<Rule>
          rules={draft.rules}
          onChange={(rules) => set('rules', rules)}
          newRule={() => ({ id: newRuleId(), clauses: [emptyClause()], serve: { variant: variants[0]! } })}
          keyOf={(rule) => rule.id}
          context={{ project, env, segments }}
          error={within('rules')}
          marks={marks}
          serve={(rule, i, onChange, error) => (
            <ServeEditor
              name={`Rule ${i + 1} serves`}
              serve={rule.serve}
              variants={variants}
              inRule
              error={error}
              onChange={(serve) => onChange({ ...rule, serve })}
            />
          )}
        />
      </Section>
      <Section title="Default rule" hint="What users get when no target or rule matched them.">
        {flag.type === 'rollout' ? (
          <RolloutPercent
            value={draft.percentage ?? 0}
            onChange={(p) => set('percentage', p)}
            error={reason('percentage')}
          />
        ) : (
          <ServeEditor
            name="Everyone else gets"
            serve={draft.fallthrough ?? { variant: variants[0]! }}
            variants={variants}
            inRule={false}
            error={reason('fallthrough')}
            onChange={(serve) => set('fallthrough', serve)}
          />
        )}
        <details class="salt">
          <summary>Salt (advanced)</summary>
          <div class="field">
            <label for={`${id}-salt`}>Salt hashed before the bucket value (empty: the flag key)</label>
            <input
              id={`${id}-salt`}
              type="text"
              value={draft.salt}
              spellcheck={false}
              onInput={(e) => set('salt', e.currentTarget.value)}
            />
            {reason('salt') && (
              <small role="alert" class="problem">
                {reason('salt')}
              </small>
            )}
          </div>
        </details>
      </Section>
    </>
  );
}

function RolloutPercent({
  value,
  onChange,
  error,
}: {
  value: number;
  onChange: (p: number) => void;
  error: string | undefined;
}) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>Percentage of users who get on (the rest: off)</label>
      <input
        id={id}
        type="number"
        min={0}
        max={100}
        step={1}
        class="pct"
        value={value}
        onInput={(e) => {
          const n = Number(e.currentTarget.value);
          if (Number.isInteger(n) && n >= 0 && n <= 100) onChange(n);
        }}
      />
      {error && (
        <small role="alert" class="problem">
          {error}
        </small>
      )}
    </div>
  );
}
