/** The "New flag" form: key (checked as typed), type, initial percentage, description. */
import { useId, useState } from 'preact/hooks';
import type { CreateFlagInput, FlagType } from '../../../../src/core/types.js';
import { api } from '../api.js';
import { ErrorText } from '../components/bits.js';
import { KeyField, keyProblem, keyUsable } from '../components/key-field.js';
import type { Flag } from '../types.js';
import { useAction } from '../use-action.js';

interface Props {
  /** `.../flags` of the environment. */
  path: string;
  taken: string[];
  onCreated: (flag: Flag) => void;
}

export function NewFlagForm({ path, taken, onCreated }: Props) {
  const id = useId();
  const [key, setKey] = useState('');
  const [type, setType] = useState<FlagType>('boolean');
  const [percent, setPercent] = useState('0');
  const [description, setDescription] = useState('');
  const { busy, error, run } = useAction();
  const [done, setDone] = useState('');

  const problem = keyProblem(key, taken, 'Flag');
  const percentOk = type === 'boolean' || (/^\d{1,3}$/.test(percent) && Number(percent) <= 100);
  const ready = keyUsable(key, problem) && percentOk;

  const submit = async (e: Event) => {
    e.preventDefault();
    if (!ready) return;
    const body: CreateFlagInput = { key, type };
    if (type === 'rollout') body.percentage = Number(percent);
    if (description.trim() !== '') body.description = description;
    const created = await run(async () => {
      const flag = await api<Flag>(path, { method: 'POST', body });
      setKey('');
      setPercent('0');
      setDescription('');
      setDone(`Flag ${flag.key} created.`);
      onCreated(flag);
    });
    if (!created) setDone('');
  };

  return (
    <section class="panel" aria-labelledby={`${id}-h`}>
      <h3 id={`${id}-h`}>New flag</h3>
      <form onSubmit={submit} class="stack">
        <div class="row">
          <KeyField label="Flag key" value={key} problem={problem} onInput={setKey} />
          <div class="field">
            <label for={`${id}-t`}>Flag type</label>
            <select id={`${id}-t`} value={type} onChange={(e) => setType(e.currentTarget.value as FlagType)}>
              <option value="boolean">boolean</option>
              <option value="rollout">rollout</option>
            </select>
          </div>
          {type === 'rollout' && (
            <div class="field">
              <label for={`${id}-p`}>Initial percentage</label>
              <input
                id={`${id}-p`}
                type="number"
                min={0}
                max={100}
                step={1}
                class="pct"
                value={percent}
                aria-invalid={percentOk ? undefined : 'true'}
                aria-describedby={percentOk ? undefined : `${id}-pp`}
                onInput={(e) => setPercent(e.currentTarget.value)}
              />
              {!percentOk && (
                <small id={`${id}-pp`} class="problem">
                  A whole number from 0 to 100.
                </small>
              )}
            </div>
          )}
        </div>
        <div class="field">
          <label for={`${id}-d`}>Flag description</label>
          <textarea
            id={`${id}-d`}
            rows={2}
            maxLength={1000}
            value={description}
            onInput={(e) => setDescription(e.currentTarget.value)}
          />
        </div>
        <div class="actions">
          <button type="submit" class="primary" disabled={busy || !ready}>
            Create flag
          </button>
          <span aria-live="polite" class="ok">
            {done}
          </span>
        </div>
        <ErrorText message={error} />
      </form>
    </section>
  );
}
