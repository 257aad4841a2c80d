/*
 * The flagwire dashboard. Preact rather than no library: JSX escapes every string it renders, so
 * flag keys, descriptions, URLs and server messages can only ever be text, and hooks keep each
 * screen a small function instead of hand-written DOM updates. Preact rather than React or a
 * bigger framework: about 4 KB min+gzip for the same model, nothing else to load, no build magic
 * beyond esbuild's JSX.
 */
import './styles.css';
import './feedback.css';
import './lists.css';
import './targeting.css';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, messageOf, setUnauthorizedHandler } from './api.js';
import { ConnectionBanner } from './components/connection-banner.js';
import { EnvNav, Header } from './components/layout.js';
import { openEvents, resetStreamCounts } from './events.js';
import { can, SessionContext } from './roles.js';
import { envHref, type Route, useRoute } from './route.js';
import { AcceptInvitation } from './screens/accept-invite.js';
import { AuditScreen } from './screens/audit.js';
import { ChangeRequestPage, ChangesScreen } from './screens/changes.js';
import { ConnectScreen } from './screens/connect.js';
import { FlagPage } from './screens/flag-page/flag-page.js';
import { NewFlagPage } from './screens/flag-page/new-flag-page.js';
import { FlagsScreen } from './screens/flags.js';
import { HistoryScreen } from './screens/history.js';
import { KeysScreen } from './screens/keys.js';
import { MembersScreen } from './screens/members.js';
import { OverviewScreen } from './screens/overview.js';
import { ProfileScreen } from './screens/profile.js';
import { SegmentPage } from './screens/segments/segment-page.js';
import { SegmentsScreen } from './screens/segments/segments-list.js';
import { type CredentialKind, credentialKind, exchangeToken, SignIn } from './screens/sign-in.js';
import { StaleScreen } from './screens/usage/stale-screen.js';
import { UsageScreen } from './screens/usage/usage-screen.js';
import { WebhooksScreen } from './screens/webhooks.js';
import type { SessionAnswer } from './types.js';

/**
 * The admin token may arrive in the fragment (`#token=...`), and an invitation's token too
 * (`#invite=...`, `docs/protocol.md` §10.6), on load or pasted into an open tab. Either is taken
 * out of the address bar before anything else happens, so it stays out of history, bookmarks and
 * screenshots; the fragment never reaches the server.
 */
type FragmentCredential = { token: string } | { invite: string } | { ssoError: string };

function takeFragment(): FragmentCredential | undefined {
  const params = new URLSearchParams(location.hash.slice(1));
  const token = params.get('token');
  const invite = params.get('invite');
  // A refused single sign-on comes back with its reason (`/#sso-error=...`).
  const ssoError = params.get('sso-error');
  if (token === null && invite === null && ssoError === null) return undefined;
  history.replaceState(null, '', location.pathname + location.search);
  if (token !== null) return { token };
  return invite !== null ? { invite } : { ssoError: ssoError ?? '' };
}

const fragmentOnLoad = takeFragment();

/** `attempt` counts sign-in screens shown, so each starts afresh with its own message. */
type Auth =
  | { state: 'checking' }
  | {
      state: 'out';
      message: string | undefined;
      attempt: number;
      /** What a refused `#token=` link held instead of the admin token, by its prefix. */
      mistaken?: CredentialKind | undefined;
    }
  /** Opened by an invitation link: the person sets their password. */
  | { state: 'invite'; token: string }
  | { state: 'in'; session: SessionAnswer };

const signedOut =
  (message: string | undefined, mistaken?: CredentialKind) =>
  (a: Auth): Auth => ({
    state: 'out',
    message,
    attempt: a.state === 'out' ? a.attempt + 1 : a.state === 'invite' ? 1 : 0,
    mistaken,
  });

function App() {
  const [auth, setAuth] = useState<Auth>({ state: 'checking' });
  const [signOutError, setSignOutError] = useState<string>();
  const route = useRoute();

  useEffect(() => {
    setUnauthorizedHandler(() =>
      setAuth((a) => (a.state === 'in' ? signedOut('Your session has ended. Sign in again.')(a) : a)),
    );
    const exchange = (token: string) =>
      exchangeToken(token).then(
        (session) => setAuth({ state: 'in', session }),
        (err: unknown) =>
          setAuth(
            signedOut(
              messageOf(err),
              err instanceof ApiError && err.status === 401 ? credentialKind(token) : undefined,
            ),
          ),
      );
    const take = (found: FragmentCredential) => {
      if ('token' in found) return exchange(found.token);
      if ('invite' in found) return setAuth({ state: 'invite', token: found.invite });
      setAuth(signedOut(`Single sign-on did not sign you in: ${found.ssoError}`));
    };
    if (fragmentOnLoad !== undefined) take(fragmentOnLoad);
    else {
      api<SessionAnswer>('/admin/api/session', { signOutOn401: false }).then(
        (session) => setAuth({ state: 'in', session }),
        (err: unknown) =>
          setAuth(signedOut(err instanceof ApiError && err.status === 401 ? undefined : messageOf(err))),
      );
    }
    const onHash = () => {
      const found = takeFragment();
      if (found !== undefined) take(found);
    };
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);

  useEffect(() => {
    if (auth.state !== 'in') return;
    let stopped = false;
    let close = () => {};
    let timer: ReturnType<typeof setTimeout> | undefined;
    // The browser gave up on the stream (it does on a 401): find out whether the session is
    // gone (the 401 handler signs out) or the server was away, and then open it again.
    const retry = () => {
      timer = setTimeout(() => {
        api('/admin/api/session').then(
          () => !stopped && open(),
          (err: unknown) => !stopped && !(err instanceof ApiError && err.status === 401) && retry(),
        );
      }, 2000);
    };
    const open = () => {
      close = openEvents(() => {
        close();
        if (!stopped) retry();
      });
    };
    open();
    return () => {
      stopped = true;
      close();
      clearTimeout(timer);
      resetStreamCounts();
    };
  }, [auth.state]);

  const signOut = async () => {
    try {
      await api('/admin/api/session', { method: 'DELETE', signOutOn401: false });
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 401)) {
        setSignOutError(`Could not sign out: ${messageOf(err)}`);
        return;
      }
    }
    setSignOutError(undefined);
    setAuth(signedOut(undefined));
  };

  if (auth.state !== 'in') {
    return (
      <>
        <Header session={undefined} onSignOut={undefined} />
        <main>
          {auth.state === 'checking' ? (
            <p>Loading…</p>
          ) : auth.state === 'invite' ? (
            <AcceptInvitation
              token={auth.token}
              onSignedIn={(session) => setAuth({ state: 'in', session })}
              onCancel={() => setAuth(signedOut(undefined))}
            />
          ) : (
            <SignIn
              key={auth.attempt}
              initialError={auth.message}
              initialMistaken={auth.mistaken}
              onSignedIn={(session) => setAuth({ state: 'in', session })}
            />
          )}
        </main>
      </>
    );
  }
  return (
    <SessionContext.Provider value={auth.session}>
      <Header session={auth.session} onSignOut={signOut} />
      <ConnectionBanner />
      {signOutError && (
        <p role="alert" class="error">
          {signOutError}
        </p>
      )}
      {route.name === 'env' && <EnvNav project={route.project} env={route.env} tab={route.tab} />}
      <main>
        <Screen route={route} session={auth.session} />
      </main>
    </SessionContext.Provider>
  );
}

function Screen({ route, session }: { route: Route; session: SessionAnswer }) {
  if (route.name === 'overview') return <OverviewScreen />;
  if (route.name === 'members') return <MembersScreen />;
  if (route.name === 'audit') return <AuditScreen />;
  if (route.name === 'profile') return <ProfileScreen session={session} />;
  if (route.name === 'not-found') {
    return (
      <>
        <h2>Page not found</h2>
        <p>
          <a href="#/">Back to the projects</a>
        </p>
      </>
    );
  }
  const { project, env } = route;
  const key = `${project}/${env}`;
  switch (route.tab) {
    case 'flags':
      if (route.creating)
        return (
          <NewFlagPage
            key={`${key}/new/${route.newKey ?? ''}`}
            project={project}
            env={env}
            initialKey={route.newKey}
          />
        );
      if (route.flag !== undefined)
        return <FlagPage key={`${key}/${route.flag}`} project={project} env={env} flagKey={route.flag} />;
      return (
        <>
          {can(session, project, 'editor') && (
            <p class="page-actions">
              <a href={envHref(project, env, 'new-flag')}>New flag with variants (text, number or JSON)</a>
            </p>
          )}
          <FlagsScreen key={key} project={project} env={env} />
        </>
      );
    case 'segments':
      if (route.flag !== undefined)
        return (
          <SegmentPage key={`${key}/${route.flag}`} project={project} env={env} segmentKey={route.flag} />
        );
      return <SegmentsScreen key={key} project={project} env={env} />;
    case 'usage':
      if (route.flag === 'stale') return <StaleScreen key={key} project={project} env={env} />;
      return <UsageScreen key={key} project={project} env={env} />;
    case 'history':
      return <HistoryScreen key={key} project={project} env={env} flag={route.flag} />;
    case 'changes':
      if (route.flag !== undefined)
        return <ChangeRequestPage key={`${key}/${route.flag}`} project={project} env={env} id={route.flag} />;
      return <ChangesScreen key={key} project={project} env={env} />;
    case 'keys':
      return <KeysScreen key={key} project={project} env={env} />;
    case 'webhooks':
      return <WebhooksScreen key={key} project={project} env={env} />;
    case 'connect':
      return <ConnectScreen key={key} project={project} env={env} />;
  }
}

const root = document.getElementById('app');
if (root) render(<App />, root);
