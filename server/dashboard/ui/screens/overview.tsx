/** `#/`: every project with its environments, live stream counts, and forms to add more. */
import { useId, useState } from 'preact/hooks';
import { api } from '../api.js';
import { ErrorText, TableWrap } from '../components/bits.js';
import { KeyField, keyProblem, keyUsable } from '../components/key-field.js';
import { useEnvChanges, useStreamCounts, useStructureChanges } from '../events.js';
import { sourceText } from '../format.js';
import { useResource } from '../resource.js';
import { envHref, navigate } from '../route.js';
import type { EnvView, Overview, ProjectView } from '../types.js';
import { useAction } from '../use-action.js';

export function OverviewScreen() {
  const overview = useResource(() => api<Overview>('/admin/api/overview'), 'overview');
  useStructureChanges(overview.reload);
  useEnvChanges(null, overview.reload);
  const projects = overview.data?.projects;
  return (
    <>
      <h2>Projects</h2>
      <ErrorText message={overview.error} />
      {!projects
        ? !overview.error && <p>Loading…</p>
        : projects.map((p) => <Project key={p.key} project={p} onCreated={overview.reload} />)}
      {projects && (
        <NewKeyForm kind="project" taken={projects.map((p) => p.key)} onCreated={overview.reload} />
      )}
    </>
  );
}

function Project({ project, onCreated }: { project: ProjectView; onCreated: () => void }) {
  const id = useId();
  const counts = useStreamCounts();
  const live = (env: EnvView) => counts[`${env.project}/${env.key}`] ?? env.streams;
  return (
    <section class="panel" aria-labelledby={id}>
      <div class="project-head start">
        <h3 id={id}>{project.key}</h3>
        <span class="badge">{sourceText(project.source)}</span>
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
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      <NewKeyForm
        kind="environment"
        project={project.key}
        taken={project.environments.map((e) => e.key)}
        onCreated={onCreated}
      />
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
