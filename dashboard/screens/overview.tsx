/**
 * `#/`: every project with its environments, live stream counts, and forms to add more; rename,
 * delete (`./lifecycle.tsx`) and "Copy flags to…" (`./copy-flags.tsx`) for each.
 */
import { useEffect, useId, useState } from 'preact/hooks';
import { api } from '../api.js';
import { KeyField, keyProblem, keyUsable } from '../components/key-field.js';
import { ErrorText, TableWrap } from '../components/page-parts.js';
import { RoleNote } from '../components/role-note.js';
import { useEnvChanges, useStreamCounts, useStructureChanges } from '../events.js';
import { sourceText } from '../format.js';
import { useResource } from '../resource.js';
import { useCan } from '../roles.js';
import { envHref, navigate } from '../route.js';
import type { EnvView, Overview, ProjectView } from '../types.js';
import { useAction } from '../use-action.js';
import { CopyFlagsDialog } from './copy-flags.js';
import { changedOverview, DeleteDialog, RenameDialog, type Subject } from './lifecycle.js';

/** A dialog the overview has open: a rename, a deletion, or a copy of flags. */
type Open = { dialog: 'rename' | 'delete'; subject: Subject } | { dialog: 'copy'; from: EnvView } | undefined;

const envName = (env: EnvView) => `${env.project}/${env.key}`;

export function OverviewScreen() {
  const overview = useResource(() => api<Overview>('/admin/api/overview'), 'overview');
  useStructureChanges(overview.reload);
  useEnvChanges(null, overview.reload);
  const projects = overview.data?.projects;
  const [open, setOpen] = useState<Open>();
  const close = () => setOpen(undefined);
  const done = () => {
    setOpen(undefined);
    overview.reload();
  };
  // Where focus goes once a rename or deletion is shown: the renamed thing's Rename button, or
  // the heading (what had it is gone; the dialog's own return of focus runs before that).
  const [focusAfter, setFocusAfter] = useState<{ label: string | undefined }>();
  useEffect(() => {
    if (!focusAfter) return;
    const button =
      focusAfter.label &&
      document.querySelector<HTMLElement>(`[aria-label="${CSS.escape(focusAfter.label)}"]`);
    const target = button || document.querySelector<HTMLElement>('main h2');
    if (target && !button) target.tabIndex = -1;
    target?.focus();
  }, [focusAfter]);
  /** A rename (`key`) or deletion is shown at once, and the dialog closes onto it. */
  const changed = (subject: Subject, key?: string) => {
    overview.mutate((data) => changedOverview(data, subject, key));
    const renamed =
      key === undefined
        ? undefined
        : subject.kind === 'project'
          ? `Rename project ${key}`
          : `Rename environment ${subject.project.key}/${key}`;
    setFocusAfter({ label: renamed });
    done();
  };
  const all = (projects ?? []).flatMap((p) => p.environments);
  const admin = useCan(undefined, 'admin');
  return (
    <>
      <h2>Projects</h2>
      <ErrorText message={overview.error} />
      {!projects
        ? !overview.error && <p>Loading…</p>
        : projects.map((p) => (
            <Project key={p.key} project={p} onCreated={overview.reload} onOpen={setOpen} />
          ))}
      {projects && admin.ok && (
        <NewKeyForm kind="project" taken={projects.map((p) => p.key)} onCreated={overview.reload} />
      )}
      <RoleNote allowed={admin} what="Creating projects" />
      {open?.dialog === 'rename' && (
        <RenameDialog
          subject={open.subject}
          taken={
            open.subject.kind === 'project'
              ? (projects ?? []).map((p) => p.key)
              : open.subject.project.environments.map((e) => e.key)
          }
          onClose={close}
          onDone={(key) => changed(open.subject, key)}
        />
      )}
      {open?.dialog === 'delete' && (
        <DeleteDialog subject={open.subject} onClose={close} onDone={() => changed(open.subject)} />
      )}
      {open?.dialog === 'copy' && (
        <CopyFlagsDialog
          from={open.from}
          targets={all.filter((e) => envName(e) !== envName(open.from))}
          onClose={done}
        />
      )}
    </>
  );
}

interface ProjectProps {
  project: ProjectView;
  onCreated: () => void;
  onOpen: (open: Open) => void;
}

function Project({ project, onCreated, onOpen }: ProjectProps) {
  const id = useId();
  const counts = useStreamCounts();
  const live = (env: EnvView) => counts[envName(env)] ?? env.streams;
  // What the config file or the default set-up names is the server's: not renamed or deleted here.
  const ours = project.source === 'dashboard';
  const admin = useCan(project.key, 'admin');
  // Copying writes flags elsewhere: judged by the global role (`docs/protocol.md` §10.6).
  const editor = useCan(undefined, 'editor');
  return (
    <section class="panel" aria-labelledby={id}>
      <div class="project-head start">
        <h3 id={id}>{project.key}</h3>
        <span class="badge">{sourceText(project.source)}</span>
        {ours && (
          <span class="lifecycle-actions">
            <button
              type="button"
              class="small"
              aria-label={`Rename project ${project.key}`}
              disabled={!admin.ok}
              title={admin.reason}
              onClick={() => onOpen({ dialog: 'rename', subject: { kind: 'project', project } })}
            >
              Rename
            </button>
            <button
              type="button"
              class="small danger"
              aria-label={`Delete project ${project.key}`}
              disabled={!admin.ok}
              title={admin.reason}
              onClick={() => onOpen({ dialog: 'delete', subject: { kind: 'project', project } })}
            >
              Delete
            </button>
          </span>
        )}
      </div>
      {project.environments.length === 0 ? (
        <p>No environments yet.</p>
      ) : (
        <TableWrap label={`Environments of ${project.key}`}>
          <table>
            <thead>
              <tr>
                <th scope="col">Environment</th>
                <th scope="col">Source</th>
                <th scope="col">Flags</th>
                <th scope="col">Live streams</th>
                <th scope="col">Revision</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {project.environments.map((env) => (
                <tr key={env.key}>
                  <td>
                    <a href={envHref(env.project, env.key, 'flags')}>{env.key}</a>
                  </td>
                  <td>{sourceText(env.source)}</td>
                  <td class="num">{env.flags}</td>
                  <td class="num">{live(env)}</td>
                  <td class="num">{env.revision}</td>
                  <td class="nowrap">
                    <button
                      type="button"
                      class="small"
                      aria-label={`Copy flags from ${envName(env)}`}
                      disabled={!editor.ok}
                      title={editor.reason}
                      onClick={() => onOpen({ dialog: 'copy', from: env })}
                    >
                      Copy flags…
                    </button>
                    {env.source === 'dashboard' && (
                      <>
                        <button
                          type="button"
                          class="small"
                          aria-label={`Rename environment ${envName(env)}`}
                          disabled={!admin.ok}
                          title={admin.reason}
                          onClick={() =>
                            onOpen({ dialog: 'rename', subject: { kind: 'environment', project, env } })
                          }
                        >
                          Rename
                        </button>
                        <button
                          type="button"
                          class="small danger"
                          aria-label={`Delete environment ${envName(env)}`}
                          disabled={!admin.ok}
                          title={admin.reason}
                          onClick={() =>
                            onOpen({ dialog: 'delete', subject: { kind: 'environment', project, env } })
                          }
                        >
                          Delete
                        </button>
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      {admin.ok && (
        <NewKeyForm
          kind="environment"
          project={project.key}
          taken={project.environments.map((e) => e.key)}
          onCreated={onCreated}
        />
      )}
    </section>
  );
}

type FormProps = { taken: string[]; onCreated: () => void } & (
  | { kind: 'project' }
  | { kind: 'environment'; project: string }
);

/** "New project" and "New environment in P": a key, checked as typed, and its create button. */
function NewKeyForm(props: FormProps) {
  const id = useId();
  const [key, setKey] = useState('');
  const { busy, error, run } = useAction();
  const isProject = props.kind === 'project';
  const problem = keyProblem(key, props.taken, isProject ? 'Project' : 'Environment');

  const submit = async (e: Event) => {
    e.preventDefault();
    if (!keyUsable(key, problem)) return;
    await run(async () => {
      if (props.kind === 'project') {
        await api('/admin/api/projects', { method: 'POST', body: { key } });
      } else {
        await api(`/admin/api/projects/${encodeURIComponent(props.project)}/environments`, {
          method: 'POST',
          body: { key },
        });
        navigate(envHref(props.project, key, 'flags'));
      }
      setKey('');
      props.onCreated();
    });
  };

  const content = (
    <form onSubmit={submit} class="row">
      <KeyField
        label={props.kind === 'project' ? 'Project key' : `New environment in ${props.project}`}
        value={key}
        problem={problem}
        onInput={setKey}
      />
      <button type="submit" class="primary" disabled={busy || !keyUsable(key, problem)}>
        {props.kind === 'project' ? 'Create project' : `Create environment in ${props.project}`}
      </button>
      <ErrorText message={error} />
    </form>
  );
  if (!isProject) return content;
  return (
    <section class="panel" aria-labelledby={id}>
      <h3 id={id}>New project</h3>
      {content}
    </section>
  );
}
