/**
 * The "New flag" form, at the top of the flags screen: key (checked as typed), type, initial
 * percentage, description (counted against the server's limit, never cut). "Created" goes away
 * after a few seconds or when the next flag is typed.
 */
import { useEffect, useId, useState } from 'preact/hooks';
import { DESCRIPTION_MAX_LENGTH } from '../../src/core/limits.js';
import type { CreateFlagInput, FlagType } from '../../src/core/types.js';
import { api } from '../api.js';
import { CharCount, overBy } from '../components/char-count.js';
import { SAVED_MS } from '../components/feedback.js';
import { InitialPercent } from '../components/initial-percent.js';
import { KeyField, keyProblem, keyUsable } from '../components/key-field.js';
import { ErrorText } from '../components/page-parts.js';
import type { Flag } from '../types.js';
import { useAction } from '../use-action.js';

interface Props {
  /** `.../flags` of the environment. */
  path: string;
  /** The key input's id. */
  keyId: string;
  taken: string[];
  onCreated: (flag: Flag) => void;
}

export function NewFlagForm({ path, keyId, taken, onCreated }: Props) {
  const id = useId();
  const [key, setKey] = useState('');
  const [type, setType] = useState<FlagType>('boolean');
  const [percent, setPercent] = useState('0');
  const [description, setDescription] = useState('');
  const { busy, error, run } = useAction();
  const [done, setDone] = useState('');
  useEffect(() => {
    if (done === '') return;
    const timer = setTimeout(() => setDone(''), SAVED_MS);
    return () => clearTimeout(timer);
  }, [done]);

  const problem = keyProblem(key, taken, 'Flag');
  const percentOk = type === 'boolean' || (/^\d{1,3}$/.test(percent) && Number(percent) <= 100);
  const descriptionOk = overBy(description, DESCRIPTION_MAX_LENGTH) === 0;
  const ready = keyUsable(key, problem) && percentOk && descriptionOk;

  const submit = async (e: Event) => {
    e.preventDefault();
    if (!ready) return;
    setDone('');
    const body: CreateFlagInput = { key, type };
    if (type === 'rollout') body.percentage = Number(percent);
    if (description.trim() !== '') body.description = description;
    await run(async () => {
      const flag = await api<Flag>(path, { method: 'POST', body });
      setKey('');
      setPercent('0');
      setDescription('');
      setDone(`Flag ${flag.key} created.`);
      onCreated(flag);
    });
  };

  return (
    <section class="panel" aria-labelledby={`${id}-h`}>
      <h3 id={`${id}-h`}>New flag</h3>
      <form onSubmit={submit} class="stack">
        <div class="row">
          <KeyField
            id={keyId}
            label="Flag key"
            value={key}
            problem={problem}
            onInput={(value) => {
              setKey(value);
              setDone('');
            }}
          />
          <div class="field">
            <label for={`${id}-t`}>Flag type</label>
            <select id={`${id}-t`} value={type} onChange={(e) => setType(e.currentTarget.value as FlagType)}>
              <option value="boolean">boolean</option>
              <option value="rollout">rollout</option>
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
            aria-invalid={descriptionOk ? undefined : 'true'}
            aria-describedby={`${id}-dc`}
            onInput={(e) => setDescription(e.currentTarget.value)}
          />
          <CharCount id={`${id}-dc`} text={description} max={DESCRIPTION_MAX_LENGTH} />
        </div>
        <div class="actions">
          <button type="submit" class="primary" disabled={busy || !ready}>
            Create flag
          </button>
          <span role="status" class="ok">
            {done}
          </span>
        </div>
        <ErrorText message={error} />
      </form>
    </section>
  );
}
