/** The only screen without a session: paste the admin token. */
import { useId, useState } from 'preact/hooks';
import { api } from '../api.js';
import { ErrorText } from '../components/bits.js';
import { useAction } from '../use-action.js';

/** Exchanges the admin token for the session cookie (`docs/protocol.md` §10.2). */
export function exchangeToken(token: string): Promise<void> {
  return api<void>('/admin/api/session', { method: 'POST', body: { token }, signOutOn401: false });
}

interface Props {
  initialError: string | undefined;
  onSignedIn: () => void;
}

export function SignIn({ initialError, onSignedIn }: Props) {
  const id = useId();
  const [token, setToken] = useState('');
  const { busy, error, setError, run } = useAction(initialError);

  const submit = async (e: Event) => {
    e.preventDefault();
    const value = token.trim();
    if (value === '') {
      setError('Paste the admin token first.');
      return;
    }
    await run(async () => {
      await exchangeToken(value);
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
      <ErrorText message={error} />
    </section>
  );
}
