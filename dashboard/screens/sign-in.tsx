/** The only screen without a session: paste the admin token. */
import { useId, useState } from 'preact/hooks';
import type { SessionInput } from '../../src/core/admin-wire.js';
import { ApiError, api } from '../api.js';
import { ErrorText } from '../components/page-parts.js';
import { useAction } from '../use-action.js';

/** Exchanges the admin token for the session cookie (`docs/protocol.md` §10.2). */
export function exchangeToken(token: string): Promise<void> {
  return api<void>('/admin/api/session', {
    method: 'POST',
    body: { token } satisfies SessionInput,
    signOutOn401: false,
  });
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
  onSignedIn: () => void;
}

export function SignIn({ initialError, initialMistaken, onSignedIn }: Props) {
  const id = useId();
  const [token, setToken] = useState('');
  const { busy, error, setError, run } = useAction(initialError);
  // Set when the server refused what was pasted and its prefix says what it was instead.
  const [mistaken, setMistaken] = useState<CredentialKind | undefined>(initialMistaken);

  const submit = async (e: Event) => {
    e.preventDefault();
    const value = tokenIn(token);
    // A new attempt starts without the last one's words.
    setMistaken(undefined);
    setError(undefined);
    if (value === '') {
      setError('Paste the admin token first.');
      return;
    }
    await run(async () => {
      try {
        await exchangeToken(value);
      } catch (err) {
        // An operator may choose any admin token, so the server decides; the prefix only explains.
        const kind = err instanceof ApiError && err.status === 401 ? credentialKind(value) : undefined;
        if (kind) setMistaken(kind);
        throw err;
      }
      onSignedIn();
    });
  };

  return (
    <section class="panel sign-in" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Sign in</h2>
      <p>Open the dashboard URL printed by flagwire-server, or paste the admin token:</p>
      <form onSubmit={submit} class="row">
        <div class="field grow">
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
        <button type="submit" class="primary" disabled={busy}>
          Sign in
        </button>
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
