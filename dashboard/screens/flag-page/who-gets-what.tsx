/**
 * "Who gets what": a user, and what the saved flag and the unsaved edit serve them, side by
 * side, evaluated by the server with the SDK's own evaluator (`POST /admin/api/evaluate`,
 * `docs/protocol.md` §10.3). Once a user is given, the answer follows every change of the edit.
 * The rule that matched is named here and highlighted in the rule list (`onMatch`).
 */
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import type { EvaluateAnswer, EvaluateInput, Refused, Served } from '../../../src/core/admin-wire.js';
import type { Rule } from '../../../src/core/targeting/types.js';
import type { UpdateFlagInput } from '../../../src/core/types.js';
import { api, messageOf } from '../../api.js';
import { LongText } from '../../components/long-text.js';
import { ErrorText } from '../../components/page-parts.js';
import { jsonish } from '../../format.js';
import { pathOf } from '../../targeting/draft.js';
import { conditionText, REASONS } from '../../targeting/words.js';
import { type UserAttributes, UserForm } from './user-form.js';

type Outcome = Served | Refused;

/** The server's answer (with `draft`: the page always sends one), and who it is about. */
interface Answer extends Required<EvaluateAnswer> {
  user: UserAttributes;
}

interface Props {
  project: string;
  env: string;
  flagKey: string;
  /** The saved flag, as JSON: the answer follows its changes too. */
  savedJson: string;
  savedRules: readonly Rule[];
  draftRules: readonly Rule[];
  /** The edit as a `PATCH` body. */
  draft: UpdateFlagInput;
  /** The rule the edit serves the user by (its index), or `undefined`; and the user's key. */
  onMatch: (match: { rule: number | undefined; user: string } | undefined) => void;
}

export function WhoGetsWhat({
  project,
  env,
  flagKey,
  savedJson,
  savedRules,
  draftRules,
  draft,
  onMatch,
}: Props) {
  const id = useId();
  const [user, setUser] = useState<UserAttributes>();
  const [answer, setAnswer] = useState<Answer>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const seq = useRef(0);
  const draftJson = JSON.stringify(draft);

  // biome-ignore lint/correctness/useExhaustiveDependencies: the flag and the edit are compared by their JSON
  useEffect(() => {
    if (!user) return;
    const mine = ++seq.current;
    setBusy(true);
    api<Required<EvaluateAnswer>>('/admin/api/evaluate', {
      method: 'POST',
      body: { environment: `${project}/${env}`, flag: flagKey, user, draft } satisfies EvaluateInput,
    })
      .then(
        (a) => {
          if (mine !== seq.current) return;
          setAnswer({ ...a, user });
          setError(undefined);
          const served = 'reason' in a.draft ? a.draft : undefined;
          onMatch({
            rule: served?.reason === 'RULE_MATCH' ? served.ruleIndex : undefined,
            user: String(user.key ?? '(no key)'),
          });
        },
        (err: unknown) => mine === seq.current && setError(`Could not evaluate: ${messageOf(err)}`),
      )
      .finally(() => mine === seq.current && setBusy(false));
  }, [user, draftJson, savedJson]);

  return (
    <section class="panel who" aria-labelledby={`${id}-h`}>
      <h3 id={`${id}-h`}>Who gets what</h3>
      <p class="hint">
        Type a user to see what they get from the saved flag and from your unsaved changes, as the SDK
        evaluates it.
      </p>
      <UserForm busy={busy} onSubmit={setUser} />
      <ErrorText message={error} />
      <div aria-live="polite">
        {answer && (
          <>
            <p class="who-for">
              <bdi>{userText(answer.user)}</bdi>
            </p>
            <div class="who-results">
              <Result title="Saved flag" served={answer.saved} rules={savedRules} />
              <Result title="With your changes" served={answer.draft} rules={draftRules} />
            </div>
          </>
        )}
      </div>
    </section>
  );
}

/** `For user bob (company: "globex")`: who the answer is about. */
export function userText(user: UserAttributes): string {
  const { key, ...attributes } = user;
  const shown = Object.entries(attributes).map(([name, value]) => `${name}: ${JSON.stringify(value)}`);
  const who = key === undefined ? 'For a user without a key' : `For user ${String(key)}`;
  return shown.length ? `${who} (${shown.join(', ')})` : who;
}

/** Why, in words, with the rule that matched. */
function reasonOf(served: Served, rules: readonly Rule[]): string {
  const base = REASONS[served.reason] ?? served.reason;
  if (served.reason === 'RULE_MATCH' && served.ruleIndex !== undefined) {
    const rule = rules[served.ruleIndex];
    return `Rule ${served.ruleIndex + 1} matched: if ${rule ? conditionText(rule.clauses) : '…'}${served.split ? ' (by the percentage split)' : ''}`;
  }
  if (served.reason === 'PREREQUISITE_FAILED') return `${base} (${served.prerequisiteKey})`;
  if (served.split) return `${base} (by the percentage split)`;
  if (served.error) return `${base} (${served.error})`;
  return base;
}

function Result({ title, served, rules }: { title: string; served: Outcome; rules: readonly Rule[] }) {
  const id = useId();
  if (!('reason' in served)) {
    const { path, reason } = pathOf(served.message);
    return (
      <section class="who-result" aria-labelledby={id}>
        <h4 id={id}>{title}</h4>
        <p class="problem">
          Cannot be evaluated: the server would not save it{path ? ` (${path}: ${reason})` : ` (${reason})`}.
        </p>
      </section>
    );
  }
  return (
    <section class="who-result" aria-labelledby={id}>
      <h4 id={id}>{title}</h4>
      <dl class="facts">
        <div>
          <dt>Variant</dt>
          <dd>
            <strong>{served.variant ?? '(the app’s default)'}</strong>
          </dd>
        </div>
        <div>
          <dt>Value</dt>
          <dd class="mono">
            <LongText
              text={jsonish(served.value)}
              limit={80}
              lines={2}
              what={`the value, ${title.toLowerCase()}`}
            />
          </dd>
        </div>
        <div>
          <dt>Why</dt>
          <dd>
            <bdi>{reasonOf(served, rules)}</bdi>
          </dd>
        </div>
      </dl>
    </section>
  );
}
