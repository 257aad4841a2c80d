/**
 * Renaming and deleting projects and environments from the overview (`docs/protocol.md` §10.3).
 * A rename keeps everything (keys, streams, webhooks, history) and changes the address; a
 * deletion asks for the typed name first and says what goes with it. What the config file (or
 * the default set-up) names offers neither: the server would refuse it.
 */
import { useId, useState } from 'preact/hooks';
import { api } from '../api.js';
import { Dialog } from '../components/dialog.js';
import { KeyField, keyProblem, keyUsable } from '../components/key-field.js';
import { ErrorText } from '../components/page-parts.js';
import type { EnvView, Overview, ProjectView } from '../types.js';
import { useAction } from '../use-action.js';

const enc = encodeURIComponent;

/** What a lifecycle dialog acts on: a project, or one of its environments. */
export type Subject =
  | { kind: 'project'; project: ProjectView }
  | { kind: 'environment'; project: ProjectView; env: EnvView };

const nameOf = (s: Subject) => (s.kind === 'project' ? s.project.key : `${s.project.key}/${s.env.key}`);
const pathOf = (s: Subject) =>
  s.kind === 'project'
    ? `/admin/api/projects/${enc(s.project.key)}`
    : `/admin/api/environments/${enc(s.project.key)}/${enc(s.env.key)}`;

/**
 * The overview as it is after `subject` was renamed to `key` (or deleted: no `key`), until the
 * next load replaces it: the dialog closes onto it, so focus does not return to a button that
 * is about to go (`Dialog` then focuses the screen's heading).
 */
export function changedOverview(overview: Overview, subject: Subject, key?: string): Overview {
  const projects = overview.projects.flatMap((p): ProjectView[] => {
    if (p.key !== subject.project.key) return [p];
    if (subject.kind === 'project') return key === undefined ? [] : [{ ...p, key }];
    const environments = p.environments.flatMap((e) =>
      e.key !== subject.env.key ? [e] : key === undefined ? [] : [{ ...e, key }],
    );
    return [{ ...p, environments }];
  });
  return { ...overview, projects };
}

interface RenameProps {
  subject: Subject;
  /** Keys already taken where the new key would go (other projects, or the project's environments). */
  taken: readonly string[];
  onClose: () => void;
  onDone: (key: string) => void;
}

export function RenameDialog({ subject, taken, onClose, onDone }: RenameProps) {
  const current = subject.kind === 'project' ? subject.project.key : subject.env.key;
  const [key, setKey] = useState(current);
  const { busy, error, run } = useAction();
  const what = subject.kind === 'project' ? 'Project' : 'Environment';
  const problem = keyProblem(
    key,
    taken.filter((k) => k !== current),
    what,
  );
  const changed = key !== current && keyUsable(key, problem);
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!changed) return;
    await run(async () => {
      await api(pathOf(subject), { method: 'PATCH', body: { key } });
      onDone(key);
    });
  };
  return (
    <Dialog title={`Rename ${subject.kind} ${nameOf(subject)}`} onClose={onClose}>
      <form onSubmit={submit}>
        <p>
          {subject.kind === 'project' ? 'Its environments move with it. ' : 'It stays in the same project. '}
          API keys, open streams, webhooks and history carry on; links and admin paths that name the old key
          stop working.
        </p>
        <KeyField label={`New ${subject.kind} key`} value={key} problem={problem} onInput={setKey} />
        <ErrorText message={error} />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy || !changed}>
            Rename {subject.kind}
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

interface DeleteProps {
  subject: Subject;
  onClose: () => void;
  onDone: () => void;
}

export function DeleteDialog({ subject, onClose, onDone }: DeleteProps) {
  const id = useId();
  const name = nameOf(subject);
  const [typed, setTyped] = useState('');
  const { busy, error, run } = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    if (typed !== name) return;
    await run(async () => {
      await api(pathOf(subject), { method: 'DELETE' });
      onDone();
    });
  };
  const envs = subject.kind === 'project' ? subject.project.environments.length : 1;
  return (
    <Dialog title={`Delete ${subject.kind} ${name}?`} onClose={onClose}>
      <form onSubmit={submit}>
        <p>
          {subject.kind === 'project'
            ? `This deletes its ${envs === 1 ? 'environment' : `${envs} environments`}: `
            : 'This deletes it: '}
          every API key stops working at once, open SDK and OFREP streams are closed, webhooks stop, and
          flags, segments and history are gone. It cannot be undone.
        </p>
        <p>
          Type <strong class="mono">{name}</strong> to confirm.
        </p>
        <div class="field">
          <label for={id}>{subject.kind === 'project' ? 'Project' : 'Environment'} to delete</label>
          <input
            id={id}
            type="text"
            autocomplete="off"
            spellcheck={false}
            value={typed}
            onInput={(e) => setTyped(e.currentTarget.value)}
          />
        </div>
        <ErrorText message={error} />
        <div class="actions">
          <button type="submit" class="danger" disabled={busy || typed !== name}>
            Delete {subject.kind}
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}
