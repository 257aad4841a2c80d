/**
 * The screen without a session (`docs/protocol.md` §10.2, §10.6): a person signs in with their
 * e-mail address and password; the operator may paste the admin token instead (or open the URL
 * flagwire-server prints, `#token=...`). One form, one "Sign in": it uses what was filled in.
 * Single sign-on, when the server offers it (`GET /admin/api/sso`), is a link above the form.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useState } from 'preact/hooks';
import type { SessionInput } from '../../src/core/admin-wire.js';
import { ApiError, api } from '../api.js';
import { ErrorText } from '../components/page-parts.js';
import type { SessionAnswer } from '../types.js';
import { useAction } from '../use-action.js';

/** Exchanges a credential (the admin token, or an e-mail address and password) for the session cookie. */
export function signIn(input: SessionInput): Promise<SessionAnswer> {
  return api<SessionAnswer>('/admin/api/session', { method: 'POST', body: input, signOutOn401: false });
}

/** Exchanges the admin token for the session cookie (`docs/protocol.md` §10.2). */
export const exchangeToken = (token: string): Promise<SessionAnswer> => signIn({ token });

/** Other ways to sign in, each a link or a button above the form: single sign-on, when offered. */
const otherWays = (sso: SsoOffer | undefined): ComponentChildren[] =>
  sso?.enabled && sso.loginUrl
    ? [
        <a key="sso" class="button" href={sso.loginUrl}>
          Sign in with SSO
        </a>,
      ]
    : [];

/** `GET /admin/api/sso`: whether the server offers single sign-on, and where it starts. */
interface SsoOffer {
  enabled: boolean;
  loginUrl: string | null;
}

/** The server's single sign-on, asked once per screen; none when it cannot say. */
function useSso(): SsoOffer | undefined {
  const [sso, setSso] = useState<SsoOffer>();
  useEffect(() => {
    let live = true;
    fetch('/admin/api/sso', { credentials: 'same-origin' })
      .then((res) => (res.ok ? (res.json() as Promise<SsoOffer>) : undefined))
      .then((offer) => live && setSso(offer))
      .catch(() => {});
    return () => {
      live = false;
    };
  }, []);
  return sso;
}

/** Seconds left of a `429`'s `Retry-After`, counting down to 0. */
function useWait(): [number, (seconds: number) => void] {
  const [until, setUntil] = useState(0);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (until <= now) return;
    const timer = setTimeout(() => setNow(Date.now()), 250);
    return () => clearTimeout(timer);
  }, [until, now]);
  const left = Math.max(0, Math.ceil((until - now) / 1000));
  const start = (seconds: number) => {
    const t = Date.now();
    setNow(t);
    setUntil(t + seconds * 1000);
  };
  return [left, start];
}

/** The seconds a `429` says to wait, or `undefined` for any other failure. */
export function retryAfter(err: unknown): number | undefined {
  if (!(err instanceof ApiError) || err.status !== 429) return undefined;
  const seconds = Number(err.headers?.get('retry-after'));
  return Number.isFinite(seconds) && seconds > 0 ? Math.ceil(seconds) : 1;
}

/**
 * What a pasted credential is, by its prefix, when it is not the admin token: an environment's
 * API key (`fw_live_`, `docs/protocol.md` §2) or a webhook signing secret (`whsec_`, §8).
 */
export type CredentialKind = 'api-key' | 'webhook-secret';

export function credentialKind(value: string): CredentialKind | undefined {
  if (value.startsWith('fw_live_')) return 'api-key';
  if (value.startsWith('whsec_')) return 'webhook-secret';
  return undefined;
}

/** The token in what was pasted: the whole printed dashboard URL works too. */
function tokenIn(pasted: string): string {
  const value = pasted.trim();
  const at = value.indexOf('#token=');
  return at === -1 ? value : (new URLSearchParams(value.slice(at + 1)).get('token')?.trim() ?? '');
}

/** Where the admin token is (`docs/protocol.md` §10.2). */
function WhereTheTokenIs() {
  return (
    <ul class="token-sources">
      <li>
        in the <code>dashboard:</code> line flagwire-server prints when it starts (
        <code>http://…/#token=…</code>: open that URL, or paste it here);
      </li>
      <li>
        or the value given to the server: <code>--admin-token</code>, the <code>FLAGWIRE_ADMIN_TOKEN</code>{' '}
        environment variable, or <code>adminToken</code> in its config file.
      </li>
    </ul>
  );
}

interface Props {
  initialError: string | undefined;
  /** What a refused `#token=` link held instead of the admin token. */
  initialMistaken?: CredentialKind | undefined;
  onSignedIn: (session: SessionAnswer) => void;
}

export function SignIn({ initialError, initialMistaken, onSignedIn }: Props) {
  const id = useId();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [token, setToken] = useState('');
  const { busy, error, setError, run } = useAction(initialError);
  // Set when the server refused what was pasted and its prefix says what it was instead.
  const [mistaken, setMistaken] = useState<CredentialKind | undefined>(initialMistaken);
  const [wait, startWait] = useWait();
  const ways = otherWays(useSso());

  const submit = async (e: Event) => {
    e.preventDefault();
    const value = tokenIn(token);
    const person = email.trim() !== '' || password !== '';
    // A new attempt starts without the last one's words.
    setMistaken(undefined);
    setError(undefined);
    if (value !== '' && person) {
      setError('Fill in your e-mail address and password, or the admin token: not both.');
      return;
    }
    if (value === '' && !person) {
      setError('Enter your e-mail address and password (or paste the admin token).');
      return;
    }
    if (person && (email.trim() === '' || password === '')) {
      setError(email.trim() === '' ? 'Enter your e-mail address too.' : 'Enter your password too.');
      return;
    }
    await run(async () => {
      let session: SessionAnswer;
      try {
        session = value !== '' ? await exchangeToken(value) : await signIn({ email: email.trim(), password });
      } catch (err) {
        // An operator may choose any admin token, so the server decides; the prefix only explains.
        const kind =
          value !== '' && err instanceof ApiError && err.status === 401 ? credentialKind(value) : undefined;
        if (kind) setMistaken(kind);
        const seconds = retryAfter(err);
        if (seconds !== undefined) startWait(seconds);
        throw err;
      }
      onSignedIn(session);
    });
  };

  return (
    <section class="panel sign-in" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Sign in</h2>
      {ways.length > 0 && <div class="actions other-ways">{ways}</div>}
      <form onSubmit={submit} class="stack" noValidate>
        <div class="field">
          <label for={`${id}-email`}>E-mail</label>
          <input
            id={`${id}-email`}
            type="email"
            autocomplete="username"
            spellcheck={false}
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for={`${id}-password`}>Password</label>
          <input
            id={`${id}-password`}
            type="password"
            autocomplete="current-password"
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </div>
        <fieldset class="admin-token">
          <legend>Or use the admin token</legend>
          <p class="hint">
            For the operator: open the dashboard URL flagwire-server prints, or paste it (or the token) here,
            leaving the e-mail and password empty.
          </p>
          <div class="field">
            <label for={id}>Admin token</label>
            <input
              id={id}
              type="password"
              autocomplete="off"
              spellcheck={false}
              value={token}
              onInput={(e) => setToken(e.currentTarget.value)}
            />
          </div>
        </fieldset>
        <div class="actions">
          <button type="submit" class="primary" disabled={busy || wait > 0}>
            Sign in
          </button>
          {wait > 0 && (
            <span class="hint" aria-live="polite">
              Try again in {wait} s.
            </span>
          )}
        </div>
      </form>
      {mistaken ? (
        <div role="alert" class="error">
          <p>
            {mistaken === 'api-key'
              ? 'That is an SDK API key (fw_live_…), not the admin token. API keys connect apps to one environment; the dashboard needs the admin token, which is:'
              : 'That is a webhook signing secret (whsec_…), not the admin token. The admin token is:'}
          </p>
          <WhereTheTokenIs />
        </div>
      ) : (
        <ErrorText message={error} />
      )}
    </section>
  );
}
