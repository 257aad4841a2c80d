/**
 * `#/profile` (`docs/protocol.md` §10.6): who is signed in and their roles; their password;
 * their personal access tokens (for scripts and the management client: made with a name and an
 * optional expiry, shown once, revoked here); their sessions, this one marked, the others ended
 * here. The admin token is no person: it has sessions, but no password and no tokens.
 */
import { useId, useState } from 'preact/hooks';
import type { PasswordChangeInput, TokenInput } from '../../src/core/wire/people.js';
import { api } from '../api.js';
import { ConfirmDialog } from '../components/confirm.js';
import { Behind, CellLabel, ErrorText, TableWrap } from '../components/page-parts.js';
import { SecretPanel } from '../components/secret-panel.js';
import { dateTime } from '../format.js';
import { useResource } from '../resource.js';
import type { CreatedToken, SessionAnswer, SessionView, SignedInVia, TokenView } from '../types.js';
import { useAction } from '../use-action.js';
import { NewPasswordField, passwordHint } from './accept-invite.js';
import { projectRolesText } from './project-roles.js';

const enc = encodeURIComponent;

const VIA: Record<SignedInVia, string> = {
  password: 'password',
  oidc: 'single sign-on',
  token: 'personal token',
  adminToken: 'admin token',
};

type Open = { dialog: 'token'; token: TokenView } | { dialog: 'others'; ids: string[] } | undefined;

export function ProfileScreen({ session }: { session: SessionAnswer }) {
  const { user } = session;
  const [open, setOpen] = useState<Open>();
  const tokens = useResource(
    () => (user ? api<TokenView[]>('/admin/api/tokens') : Promise.resolve([])),
    `tokens/${user?.id ?? ''}`,
  );
  const sessions = useResource(() => api<SessionView[]>('/admin/api/me/sessions'), 'sessions');
  const mine = tokens.data?.filter((t) => t.user === user?.id);
  const others = sessions.data?.filter((s) => !s.current) ?? [];

  return (
    <>
      <h2>Profile</h2>
      <Behind dialogOpen={open !== undefined}>
        <section class="panel" aria-label="Who you are">
          {user ? (
            <dl class="facts">
              <div>
                <dt>Name</dt>
                <dd>{user.name}</dd>
              </div>
              <div>
                <dt>E-mail</dt>
                <dd>{user.email}</dd>
              </div>
              <div>
                <dt>Role</dt>
                <dd>{user.role}</dd>
              </div>
              <div>
                <dt>Roles inside projects</dt>
                <dd>{projectRolesText(user.projects)}</dd>
              </div>
            </dl>
          ) : (
            <p>
              Signed in with the <strong>admin token</strong>, which acts as an admin. It is no person: it has
              no password or personal tokens. Invite yourself from Members to have them.
            </p>
          )}
        </section>
        {user && <PasswordForm />}
        {user && (
          <TokensSection
            tokens={mine}
            error={tokens.error}
            onCreated={tokens.reload}
            onRevoke={(token) => setOpen({ dialog: 'token', token })}
          />
        )}
        <section class="panel" aria-labelledby="sessions-h">
          <h3 id="sessions-h">Sessions</h3>
          <p class="hint">
            Each sign-in is a session; it ends a week after it began, after 12 hours unused, or when ended
            here.
          </p>
          <ErrorText message={sessions.error} />
          {!sessions.data ? (
            !sessions.error && <p>Loading…</p>
          ) : (
            <>
              <TableWrap label="Sessions" cards>
                <table class="sessions">
                  <thead>
                    <tr>
                      <th scope="col">Signed in with</th>
                      <th scope="col">Since</th>
                      <th scope="col">Last used</th>
                      <th scope="col">Ends</th>
                      <th scope="col">Actions</th>
                    </tr>
                  </thead>
                  <tbody>
                    {sessions.data.map((s) => (
                      <SessionRow key={s.id} session={s} onEnded={sessions.reload} />
                    ))}
                  </tbody>
                </table>
              </TableWrap>
              {others.length > 0 && (
                <div class="actions">
                  <button
                    type="button"
                    onClick={() => setOpen({ dialog: 'others', ids: others.map((s) => s.id) })}
                  >
                    End every other session
                  </button>
                </div>
              )}
            </>
          )}
        </section>
      </Behind>
      {open?.dialog === 'token' && (
        <ConfirmDialog
          title={`Revoke token ${open.token.name}?`}
          text="Scripts using it are refused from their next request."
          confirmLabel="Revoke token"
          danger
          action={async () => {
            await api(`/admin/api/tokens/${enc(open.token.id)}`, { method: 'DELETE' });
            tokens.reload();
          }}
          onClose={() => setOpen(undefined)}
        />
      )}
      {open?.dialog === 'others' && (
        <ConfirmDialog
          title="End every other session?"
          text={`${open.ids.length === 1 ? 'One other session ends' : `${open.ids.length} other sessions end`}: wherever you are signed in besides this page must sign in again.`}
          confirmLabel="End other sessions"
          danger
          action={async () => {
            for (const id of open.ids) await api(`/admin/api/me/sessions/${enc(id)}`, { method: 'DELETE' });
            sessions.reload();
          }}
          onClose={() => setOpen(undefined)}
        />
      )}
    </>
  );
}

function SessionRow({ session: s, onEnded }: { session: SessionView; onEnded: () => void }) {
  const { busy, error, run } = useAction();
  return (
    <tr>
      <td>
        {VIA[s.via]}
        {s.current && (
          <>
            {' '}
            <span class="badge">this session</span>
          </>
        )}
      </td>
      <td>
        <CellLabel text="Since" />
        {dateTime(s.createdAt)}
      </td>
      <td>
        <CellLabel text="Last used" />
        {dateTime(s.lastSeenAt)}
      </td>
      <td>
        <CellLabel text="Ends" />
        {dateTime(s.expiresAt)}
      </td>
      <td class="row-actions">
        {s.current ? (
          <span class="hint">Sign out to end it</span>
        ) : (
          <button
            type="button"
            class="small"
            disabled={busy}
            aria-label={`End the session since ${dateTime(s.createdAt)}`}
            onClick={() =>
              run(async () => {
                await api(`/admin/api/me/sessions/${enc(s.id)}`, { method: 'DELETE' });
                onEnded();
              })
            }
          >
            End
          </button>
        )}
        <ErrorText message={error} />
      </td>
    </tr>
  );
}

function PasswordForm() {
  const id = useId();
  const [current, setCurrent] = useState('');
  const [password, setPassword] = useState('');
  const [done, setDone] = useState(false);
  const { busy, error, setError, run } = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    setDone(false);
    if (current === '') return setError('Enter your current password.');
    if (!passwordHint(password).ok) return setError('Choose a new password of at least 12 characters.');
    const ok = await run(() =>
      api('/admin/api/me/password', {
        method: 'POST',
        body: { current, password } satisfies PasswordChangeInput,
      }),
    );
    if (ok) {
      setCurrent('');
      setPassword('');
      setDone(true);
    }
  };
  return (
    <section class="panel" aria-labelledby={`${id}-h`}>
      <h3 id={`${id}-h`}>Password</h3>
      <form onSubmit={submit} class="stack">
        <div class="field">
          <label for={`${id}-c`}>Current password</label>
          <input
            id={`${id}-c`}
            type="password"
            autocomplete="current-password"
            value={current}
            onInput={(e) => setCurrent(e.currentTarget.value)}
          />
        </div>
        <NewPasswordField id={`${id}-n`} label="New password" value={password} onInput={setPassword} />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            Change password
          </button>
          <span role="status" class="ok">
            {done ? 'Password changed.' : ''}
          </span>
        </div>
        <ErrorText message={error} />
      </form>
    </section>
  );
}

/** The end of a chosen day, local time, as the server's ISO instant. */
const endOfDay = (day: string) => new Date(`${day}T23:59:59`).toISOString();

interface TokensProps {
  tokens: TokenView[] | undefined;
  error: string | undefined;
  onCreated: () => void;
  onRevoke: (token: TokenView) => void;
}

function TokensSection({ tokens, error: loadError, onCreated, onRevoke }: TokensProps) {
  const id = useId();
  const [name, setName] = useState('');
  const [expires, setExpires] = useState('');
  const [created, setCreated] = useState<CreatedToken>();
  const { busy, error, setError, run } = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    if (name.trim() === '') return setError('Name the token: what is it for?');
    await run(async () => {
      const body: TokenInput = { name: name.trim(), ...(expires && { expiresAt: endOfDay(expires) }) };
      setCreated(await api<CreatedToken>('/admin/api/tokens', { method: 'POST', body }));
      setName('');
      setExpires('');
      onCreated();
    });
  };
  return (
    <section class="panel" aria-labelledby={`${id}-h`}>
      <h3 id={`${id}-h`}>Personal tokens</h3>
      <p class="hint">
        For scripts and the management client: <code>Authorization: Bearer fw_pat_…</code> acts as you, with
        your role.
      </p>
      {created ? (
        <SecretPanel
          title={`New token ${created.name}`}
          value={created.token}
          valueLabel="New personal token"
          copyLabel="Copy token"
          note="This token is shown once. Store it now."
          onDone={() => setCreated(undefined)}
        />
      ) : (
        <form onSubmit={submit} class="row">
          <div class="field grow">
            <label for={`${id}-n`}>Token name</label>
            <input
              id={`${id}-n`}
              type="text"
              autocomplete="off"
              maxLength={100}
              value={name}
              onInput={(e) => setName(e.currentTarget.value)}
            />
          </div>
          <div class="field">
            <label for={`${id}-x`}>Expires (optional)</label>
            <input
              id={`${id}-x`}
              type="date"
              value={expires}
              onInput={(e) => setExpires(e.currentTarget.value)}
            />
          </div>
          <button type="submit" class="primary" disabled={busy}>
            Create token
          </button>
          <ErrorText message={error} />
        </form>
      )}
      <ErrorText message={loadError} />
      {!tokens ? (
        !loadError && <p>Loading…</p>
      ) : tokens.length === 0 ? (
        <p class="empty">No personal tokens yet.</p>
      ) : (
        <TableWrap label="Personal tokens" cards>
          <table class="tokens">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Created</th>
                <th scope="col">Expires</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {tokens.map((t) => (
                <tr key={t.id}>
                  <td>{t.name}</td>
                  <td>
                    <CellLabel text="Created" />
                    {dateTime(t.createdAt)}
                  </td>
                  <td>
                    <CellLabel text="Expires" />
                    {t.expiresAt ? dateTime(t.expiresAt) : 'never'}
                  </td>
                  <td class="row-actions">
                    <button
                      type="button"
                      class="small danger"
                      aria-label={`Revoke token ${t.name}`}
                      onClick={() => onRevoke(t)}
                    >
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </section>
  );
}
