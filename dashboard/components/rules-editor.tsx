/**
 * The rule builder, for a flag's rules and a segment's alike: ordered rules, each a card with
 * its conditions in words ("everyone" when it has none), added, removed and moved up or down
 * with buttons (keyboard first: focus stays on the button of the rule that moved, and where it
 * went is announced). What a rule serves is the caller's (`serve`). The server's refusal is
 * shown at the rule or condition its JSON path names.
 */
import type { ComponentChildren } from 'preact';
import { useId, useState } from 'preact/hooks';
import type { Clause } from '../../src/core/targeting/types.js';
import { inside, moved, replaced, without } from '../targeting/draft.js';
import { conditionText } from '../targeting/words.js';
import { type ClauseContext, ClauseEditor } from './clause-editor.js';

interface Props<R extends { clauses: Clause[] }> {
  rules: readonly R[];
  onChange: (rules: R[]) => void;
  /** A new rule, with one empty condition. */
  newRule: () => R;
  /** A stable key of a rule (its id, or its position for rules without one). */
  keyOf: (rule: R, index: number) => string;
  context: ClauseContext;
  /** The server's refusal: its JSON path (`rules[1].clauses[0].values[0]`) and why. */
  error: { path: string; reason: string } | undefined;
  /** What a rule serves (flags): its editor, given its error (`rules[i].serve...`). */
  serve?: (
    rule: R,
    index: number,
    onChange: (rule: R) => void,
    error: string | undefined,
  ) => ComponentChildren;
  /** Notes on rules by index ("ann gets this, in your edit"): the rule is highlighted. */
  marks?: ReadonlyMap<number, string>;
}

export const emptyClause = (): Clause => ({ attribute: '', op: 'in', values: [] });

export function RulesEditor<R extends { clauses: Clause[] }>(props: Props<R>) {
  const { rules, onChange, newRule, keyOf, context, error, serve, marks } = props;
  const id = useId();
  const [said, setSaid] = useState('');
  const focus = (target: string) => requestAnimationFrame(() => document.getElementById(target)?.focus());

  const move = (from: number, to: number) => {
    onChange(moved(rules, from, to));
    setSaid(
      `Rule ${from + 1} moved ${to < from ? 'up' : 'down'}: it is now rule ${to + 1} of ${rules.length}.`,
    );
    // The button pressed, on the rule where it went; the other one when that one is now disabled.
    const up = to < from;
    const stays = up ? to > 0 : to < rules.length - 1;
    focus(`${id}-${to}-${stays === up ? 'up' : 'down'}`);
  };
  const remove = (i: number) => {
    onChange(without(rules, i));
    setSaid(`Rule ${i + 1} removed.`);
    focus(rules.length > 1 ? `${id}-${Math.min(i, rules.length - 2)}-h` : `${id}-add`);
  };
  const add = () => {
    onChange([...rules, newRule()]);
    setSaid(`Rule ${rules.length + 1} added.`);
    focus(`${id}-${rules.length}-h`);
  };

  return (
    <div class="rules">
      <datalist id="attribute-names">
        {['key', 'email', 'country', 'plan', 'company', 'version', 'ip', '$now'].map((a) => (
          <option key={a} value={a} />
        ))}
      </datalist>
      {rules.length === 0 && <p class="hint">No rules: every user goes on to the default rule.</p>}
      <ol class="rule-list">
        {rules.map((rule, i) => {
          const path = `rules[${i}]`;
          const mine = error && inside(error.path, path) ? error : undefined;
          const clauseError = (j: number) => {
            const at = `${path}.clauses[${j}]`;
            if (!mine || !inside(mine.path, at)) return undefined;
            return { part: mine.path.slice(at.length + 1), reason: mine.reason };
          };
          const serveError = mine && inside(mine.path, `${path}.serve`) ? mine.reason : undefined;
          const ruleError = mine && !/\.clauses\[\d+\]|\.serve/.test(mine.path) ? mine.reason : undefined;
          const mark = marks?.get(i);
          const set = (r: R) => onChange(replaced(rules, i, r));
          return (
            <li key={keyOf(rule, i)} class={mark ? 'rule marked' : 'rule'}>
              <section aria-labelledby={`${id}-${i}-h`}>
                <div class="rule-head">
                  <h4 id={`${id}-${i}-h`} tabIndex={-1}>
                    Rule {i + 1}
                  </h4>
                  <p class="rule-summary">
                    If <strong>{conditionText(rule.clauses)}</strong>
                  </p>
                  <div class="rule-tools">
                    <button
                      type="button"
                      class="small"
                      id={`${id}-${i}-up`}
                      disabled={i === 0}
                      onClick={() => move(i, i - 1)}
                      aria-label={`Move rule ${i + 1} up`}
                    >
                      ↑ Up
                    </button>
                    <button
                      type="button"
                      class="small"
                      id={`${id}-${i}-down`}
                      disabled={i === rules.length - 1}
                      onClick={() => move(i, i + 1)}
                      aria-label={`Move rule ${i + 1} down`}
                    >
                      ↓ Down
                    </button>
                    <button
                      type="button"
                      class="small danger"
                      onClick={() => remove(i)}
                      aria-label={`Remove rule ${i + 1}`}
                    >
                      Remove
                    </button>
                  </div>
                  {mark && <p class="mark">{mark}</p>}
                </div>
                {ruleError && (
                  <p role="alert" class="problem">
                    {ruleError}
                  </p>
                )}
                {rule.clauses.map((clause, j) => (
                  <ClauseEditor
                    // biome-ignore lint/suspicious/noArrayIndexKey: conditions have no ids; their position is their name
                    key={j}
                    clause={clause}
                    name={`Condition ${j + 1} of rule ${i + 1}`}
                    context={context}
                    error={clauseError(j)}
                    onChange={(c) => set({ ...rule, clauses: replaced(rule.clauses, j, c) })}
                    onRemove={() => set({ ...rule, clauses: without(rule.clauses, j) })}
                  />
                ))}
                <button
                  type="button"
                  class="small"
                  onClick={() => set({ ...rule, clauses: [...rule.clauses, emptyClause()] })}
                >
                  Add condition{rule.clauses.length ? ' (and)' : ''}
                </button>
                {serve?.(rule, i, set, serveError)}
              </section>
            </li>
          );
        })}
      </ol>
      <p role="status" class="visually-hidden">
        {said}
      </p>
      <button type="button" id={`${id}-add`} onClick={add}>
        Add rule
      </button>
    </div>
  );
}
