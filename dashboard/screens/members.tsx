/**
 * `#/members` (admins, `docs/protocol.md` §10.6): the people with an account, their global role,
 * their roles inside projects and whether they accepted their invitation; invite someone (the
 * one-time link is shown once, to send them), change a role, disable or enable, remove, and make a
 * new link for someone who has not accepted theirs.
 */
import { useId, useState } from 'preact/hooks';
import type { NewUserInput, UserChangeInput } from '../../src/core/wire/people.js';
import { api } from '../api.js';
import { ConfirmDialog } from '../components/confirm.js';
import { Dialog } from '../components/dialog.js';
import { FeedbackNote, useFeedback } from '../components/feedback.js';
import { Behind, CellLabel, ErrorText, TableWrap } from '../components/page-parts.js';
import { RoleNote } from '../components/role-note.js';
import { SecretPanel } from '../components/secret-panel.js';
import { dateTime } from '../format.js';
import { useResource } from '../resource.js';
import { useCan, useSession } from '../roles.js';
import type { Invited, Overview, ProjectRoles, Role, User } from '../types.js';
import { useAction } from '../use-action.js';
import { ProjectRolesEditor, projectRolesText, ROLE_TEXT, RoleSelect } from './project-roles.js';

const enc = encodeURIComponent;

/** What a dialog of the screen is about. */
type Open =
  | { dialog: 'remove'; user: User }
  | { dialog: 'projects'; user: User }
  | { dialog: 'disable'; user: User }
  | undefined;

export function MembersScreen() {
  const allowed = useCan(undefined, 'admin');
  const users = useResource(
    () => (allowed.ok ? api<User[]>('/admin/api/users') : Promise.resolve([])),
    'users',
  );
  const overview = useResource(() => api<Overview>('/admin/api/overview'), 'overview');
  const projects = (overview.data?.projects ?? []).map((p) => p.key);
  const [link, setLink] = useState<{ email: string; url: string; expiresAt: string }>();
  const [open, setOpen] = useState<Open>();
  const me = useSession()?.user?.id;

  if (!allowed.ok) {
    return (
      <>
        <h2>Members</h2>
        <RoleNote allowed={allowed} what="Seeing and inviting people" />
      </>
    );
  }

  const replace = (user: User) => users.mutate((list) => list.map((u) => (u.id === user.id ? user : u)));
  const invited = (answer: Invited) => {
    setLink({ email: answer.user.email, url: answer.inviteUrl, expiresAt: answer.expiresAt });
    users.reload();
  };
  const list = users.data;

  return (
    <>
      <h2>Members</h2>
      <Behind dialogOpen={open !== undefined}>
        {link ? (
          <SecretPanel
            title={`Invitation link for ${link.email}`}
            value={link.url}
            valueLabel="Invitation link"
            copyLabel="Copy link"
            note={`Send it to them: it is shown once, works once, until ${dateTime(link.expiresAt)}. Opening it, they choose their password.`}
            onDone={() => setLink(undefined)}
          />
        ) : (
          <InviteForm projects={projects} onInvited={invited} />
        )}
        <ErrorText message={users.error} />
        {!list ? (
          !users.error && <p>Loading…</p>
        ) : list.length === 0 ? (
          <p class="empty">Nobody has an account yet: invite the first person above.</p>
        ) : (
          <TableWrap label="Members" cards>
            <table class="members">
              <thead>
                <tr>
                  <th scope="col">Person</th>
                  <th scope="col">Status</th>
                  <th scope="col">Role</th>
                  <th scope="col">Roles inside projects</th>
                  <th scope="col">Since</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {list.map((user) => (
                  <MemberRow
                    key={user.id}
                    user={user}
                    self={user.id === me}
                    onChanged={replace}
                    onOpen={(dialog) => setOpen({ dialog, user })}
                    onInvited={invited}
                  />
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
      </Behind>
      {open?.dialog === 'remove' && (
        <ConfirmDialog
          title={`Remove ${open.user.name}?`}
          text={`${open.user.email} can no longer sign in: their sessions end at once and their personal tokens stop. The history keeps naming them.`}
          confirmLabel="Remove person"
          danger
          action={async () => {
            await api(`/admin/api/users/${enc(open.user.id)}`, { method: 'DELETE' });
            users.mutate((l) => l.filter((u) => u.id !== open.user.id));
            users.reload();
          }}
          onClose={() => setOpen(undefined)}
        />
      )}
      {open?.dialog === 'disable' && (
        <ConfirmDialog
          title={`Disable ${open.user.name}?`}
          text="Their sessions end at once and their personal tokens stop, until they are enabled again."
          confirmLabel="Disable"
          danger
          action={async () => {
            replace(await patchUser(open.user.id, { disabled: true }));
          }}
          onClose={() => setOpen(undefined)}
        />
      )}
      {open?.dialog === 'projects' && (
        <ProjectRolesDialog
          user={open.user}
          projects={projects}
          onClose={() => setOpen(undefined)}
          onSaved={(user) => {
            replace(user);
            setOpen(undefined);
          }}
        />
      )}
    </>
  );
}

const patchUser = (id: string, body: UserChangeInput) =>
  api<User>(`/admin/api/users/${enc(id)}`, { method: 'PATCH', body });

interface RowProps {
  user: User;
  /** The person signed in. */
  self: boolean;
  onChanged: (user: User) => void;
  onOpen: (dialog: 'remove' | 'projects' | 'disable') => void;
  onInvited: (answer: Invited) => void;
}

function MemberRow({ user, self, onChanged, onOpen, onInvited }: RowProps) {
  const roleFeedback = useFeedback();
  const action = useAction();
  const changeRole = async (role: Role) => {
    roleFeedback.set(undefined);
    try {
      onChanged(await patchUser(user.id, { role }));
      roleFeedback.set({ kind: 'saved', text: `Saved: ${role}` });
    } catch (err) {
      roleFeedback.set({ kind: 'error', network: false, text: `Not saved: ${(err as Error).message}` });
    }
  };
  return (
    <tr>
      <td>
        <strong>{user.name}</strong>
        {self && ' (you)'}
        <span class="hint">{user.email}</span>
      </td>
      <td>
        <CellLabel text="Status" />
        <span class="badge">{user.status}</span>
        {user.sso && <span class="hint">single sign-on</span>}
      </td>
      <td>
        <CellLabel text="Role" />
        <RoleSelect value={user.role} label={`Role of ${user.email}`} onChange={changeRole} />
        <FeedbackNote feedback={roleFeedback} />
      </td>
      <td>
        <CellLabel text="Roles inside projects" />
        {projectRolesText(user.projects)}{' '}
        <button
          type="button"
          class="small"
          aria-label={`Edit roles inside projects: ${user.email}`}
          onClick={() => onOpen('projects')}
        >
          Edit
        </button>
      </td>
      <td>
        <CellLabel text="Since" />
        {dateTime(user.createdAt)}
      </td>
      <td class="row-actions">
        {user.status === 'invited' && (
          <button
            type="button"
            class="small"
            aria-label={`New link for ${user.email}`}
            disabled={action.busy}
            onClick={() =>
              action.run(async () =>
                onInvited(
                  await api<Invited>(`/admin/api/users/${enc(user.id)}/invitation`, { method: 'POST' }),
                ),
              )
            }
          >
            New link
          </button>
        )}
        {user.disabled ? (
          <button
            type="button"
            class="small"
            aria-label={`Enable ${user.email}`}
            disabled={action.busy}
            onClick={() => action.run(async () => onChanged(await patchUser(user.id, { disabled: false })))}
          >
            Enable
          </button>
        ) : (
          <button
            type="button"
            class="small"
            aria-label={`Disable ${user.email}`}
            disabled={self}
            title={self ? 'You cannot disable yourself' : undefined}
            onClick={() => onOpen('disable')}
          >
            Disable
          </button>
        )}
        <button
          type="button"
          class="small danger"
          aria-label={`Remove ${user.email}`}
          disabled={self}
          title={self ? 'You cannot remove yourself' : undefined}
          onClick={() => onOpen('remove')}
        >
          Remove
        </button>
        <ErrorText message={action.error} />
      </td>
    </tr>
  );
}

function InviteForm({ projects, onInvited }: { projects: string[]; onInvited: (answer: Invited) => void }) {
  const id = useId();
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [roles, setRoles] = useState<ProjectRoles>({});
  const { busy, error, setError, run } = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!/^[^\s@]+@[^\s@]+$/.test(email.trim())) {
      setError('Enter the e-mail address of the person to invite.');
      return;
    }
    await run(async () => {
      const body: NewUserInput = {
        email: email.trim(),
        role,
        ...(name.trim() && { name: name.trim() }),
        ...(Object.keys(roles).length > 0 && { projects: roles }),
      };
      const answer = await api<Invited>('/admin/api/users', { method: 'POST', body });
      setEmail('');
      setName('');
      setRole('viewer');
      setRoles({});
      onInvited(answer);
    });
  };
  return (
    <section class="panel" aria-labelledby={`${id}-h`}>
      <h3 id={`${id}-h`}>Invite a person</h3>
      <form onSubmit={submit} class="stack" noValidate>
        <div class="row">
          <div class="field grow">
            <label for={`${id}-e`}>E-mail address</label>
            <input
              id={`${id}-e`}
              type="email"
              autocomplete="off"
              spellcheck={false}
              value={email}
              onInput={(e) => setEmail(e.currentTarget.value)}
            />
          </div>
          <div class="field grow">
            <label for={`${id}-n`}>Name (optional)</label>
            <input
              id={`${id}-n`}
              type="text"
              autocomplete="off"
              maxLength={200}
              value={name}
              onInput={(e) => setName(e.currentTarget.value)}
            />
          </div>
          <div class="field">
            <label for={`${id}-r`}>Role</label>
            <RoleSelect id={`${id}-r`} value={role} onChange={setRole} />
          </div>
        </div>
        <p class="hint">{ROLE_TEXT[role]}.</p>
        <ProjectRolesEditor value={roles} projects={projects} onChange={setRoles} />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            Invite
          </button>
        </div>
        <ErrorText message={error} />
      </form>
    </section>
  );
}

interface ProjectRolesDialogProps {
  user: User;
  projects: string[];
  onClose: () => void;
  onSaved: (user: User) => void;
}

function ProjectRolesDialog({ user, projects, onClose, onSaved }: ProjectRolesDialogProps) {
  const [roles, setRoles] = useState<ProjectRoles>(user.projects);
  const { busy, error, run } = useAction();
  // A project deleted since keeps its line, so it can be removed.
  const known = [...new Set([...projects, ...Object.keys(user.projects)])];
  return (
    <Dialog title={`Roles of ${user.name} inside projects`} onClose={onClose}>
      <p>
        Global role: <strong>{user.role}</strong>.
      </p>
      <ProjectRolesEditor value={roles} projects={known} onChange={setRoles} />
      <ErrorText message={error} />
      <div class="actions">
        <button
          type="button"
          class="primary"
          disabled={busy}
          onClick={() => run(async () => onSaved(await patchUser(user.id, { projects: roles })))}
        >
          Save project roles
        </button>
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}
