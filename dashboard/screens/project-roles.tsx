/**
 * Roles inside projects (`docs/protocol.md` §10.6): each replaces the person's global role inside
 * that project. A list of project and role, each changeable and removable, and a row that adds one
 * for a project of the overview not listed yet.
 */
import { useId, useState } from 'preact/hooks';
import type { ProjectRoles, Role } from '../types.js';

export const ROLES: readonly Role[] = ['viewer', 'editor', 'admin'];

export const ROLE_TEXT: Record<Role, string> = {
  admin: 'admin: people, projects, environments, API keys and everything else',
  editor: 'editor: flags, segments, webhooks, copies of flags',
  viewer: 'viewer: reads',
};

export function RoleSelect({
  id,
  value,
  label,
  onChange,
}: {
  id?: string;
  value: Role;
  /** Set when no `<label>` names it. */
  label?: string;
  onChange: (role: Role) => void;
}) {
  return (
    <select
      id={id}
      aria-label={label}
      value={value}
      onChange={(e) => onChange(e.currentTarget.value as Role)}
    >
      {ROLES.map((r) => (
        <option key={r} value={r}>
          {r}
        </option>
      ))}
    </select>
  );
}

/** `acme: editor, shop: viewer`, or none. */
export function projectRolesText(roles: ProjectRoles): string {
  const entries = Object.entries(roles);
  return entries.length === 0 ? 'none' : entries.map(([p, r]) => `${p}: ${r}`).join(', ');
}

interface Props {
  value: ProjectRoles;
  /** The projects there are (the overview's). */
  projects: readonly string[];
  onChange: (roles: ProjectRoles) => void;
}

export function ProjectRolesEditor({ value, projects, onChange }: Props) {
  const id = useId();
  const free = projects.filter((p) => !(p in value));
  const [project, setProject] = useState('');
  const [role, setRole] = useState<Role>('editor');
  const chosen = free.includes(project) ? project : (free[0] ?? '');
  const entries = Object.entries(value);
  return (
    <fieldset class="project-roles-editor">
      <legend>Roles inside projects</legend>
      <p class="hint">Each replaces the global role inside its project (higher or lower).</p>
      {entries.length > 0 && (
        <ul class="stack plain-list">
          {entries.map(([p, r]) => (
            <li key={p} class="row">
              <span class="mono">{p}</span>
              <RoleSelect
                value={r}
                label={`Role in project ${p}`}
                onChange={(next) => onChange({ ...value, [p]: next })}
              />
              <button
                type="button"
                class="small"
                aria-label={`Remove the role in project ${p}`}
                onClick={() => {
                  const { [p]: _gone, ...rest } = value;
                  onChange(rest);
                }}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      {free.length === 0 ? (
        <p class="hint">{projects.length === 0 ? 'No projects yet.' : 'Every project has a role here.'}</p>
      ) : (
        <div class="row">
          <div class="field">
            <label for={`${id}-p`}>Project</label>
            <select id={`${id}-p`} value={chosen} onChange={(e) => setProject(e.currentTarget.value)}>
              {free.map((p) => (
                <option key={p} value={p}>
                  {p}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for={`${id}-r`}>Role in that project</label>
            <RoleSelect id={`${id}-r`} value={role} onChange={setRole} />
          </div>
          <button type="button" onClick={() => chosen && onChange({ ...value, [chosen]: role })}>
            Add project role
          </button>
        </div>
      )}
    </fieldset>
  );
}
