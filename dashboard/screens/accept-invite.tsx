/**
 * `#invite=TOKEN` (`docs/protocol.md` §10.6): the person invited sets their password (and the name
 * they go by), and is signed in. A used, replaced or expired link (`410`) says to ask for a new one;
 * a password refused (`400`) leaves the link working.
 */
import { useId, useState } from 'preact/hooks';
import type { InvitationAcceptInput } from '../../src/core/wire/people.js';
import { ApiError, api } from '../api.js';
import { ErrorText } from '../components/page-parts.js';
import type { SessionAnswer } from '../types.js';
import { useAction } from '../use-action.js';

/** The least length of a password, in characters (code points), as the server counts them. */
export const MIN_PASSWORD = 12;

/** What a password being typed still needs, as a live hint. */
export function passwordHint(password: string): { ok: boolean; text: string } {
  const length = [...password].length;
  if (length >= MIN_PASSWORD) return { ok: true, text: `${length} characters: long enough.` };
  const more = MIN_PASSWORD - length;
  return {
    ok: false,
    text: `At least ${MIN_PASSWORD} characters: ${more} more${length === 0 ? '' : ` (${length} so far)`}.`,
  };
}

/** A new password with its live length hint. */
export function NewPasswordField({
  id,
  label,
  value,
  onInput,
}: {
  id: string;
  label: string;
  value: string;
  onInput: (value: string) => void;
}) {
  const hint = passwordHint(value);
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        type="password"
        autocomplete="new-password"
        aria-describedby={`${id}-hint`}
        value={value}
        onInput={(e) => onInput(e.currentTarget.value)}
      />
      <span id={`${id}-hint`} class={hint.ok ? 'hint ok' : 'hint'} aria-live="polite">
        {hint.text}
      </span>
    </div>
  );
}

interface Props {
  token: string;
  onSignedIn: (session: SessionAnswer) => void;
  /** Back to the ordinary sign-in screen. */
  onCancel: () => void;
}

export function AcceptInvitation({ token, onSignedIn, onCancel }: Props) {
  const id = useId();
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [gone, setGone] = useState(false);
  const { busy, error, setError, run } = useAction();

  const submit = async (e: Event) => {
    e.preventDefault();
    if (!passwordHint(password).ok) {
      setError(`Choose a password of at least ${MIN_PASSWORD} characters.`);
      return;
    }
    await run(async () => {
      const body: InvitationAcceptInput = { token, password, ...(name.trim() && { name: name.trim() }) };
      try {
        onSignedIn(await api<SessionAnswer>('/admin/api/invitations/accept', { method: 'POST', body }));
      } catch (err) {
        if (err instanceof ApiError && err.status === 410) setGone(true);
        throw err;
      }
    });
  };

  return (
    <section class="panel sign-in" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Set your password</h2>
      {gone ? (
        <>
          <p role="alert" class="error">
            This invitation link was used already, replaced by a newer one, or has expired. Ask an admin for a
            new link.
          </p>
          <button type="button" onClick={onCancel}>
            Go to the sign-in screen
          </button>
        </>
      ) : (
        <>
          <p>
            You were invited to this Flagwire dashboard. Choose a password to finish; you are then signed in.
          </p>
          <form onSubmit={submit} class="stack">
            <div class="field">
              <label for={`${id}-name`}>Your name (optional)</label>
              <input
                id={`${id}-name`}
                type="text"
                autocomplete="name"
                maxLength={200}
                value={name}
                onInput={(e) => setName(e.currentTarget.value)}
              />
            </div>
            <NewPasswordField id={`${id}-pw`} label="Password" value={password} onInput={setPassword} />
            <div class="actions">
              <button type="submit" class="primary" disabled={busy}>
                Set password and continue
              </button>
            </div>
          </form>
          <ErrorText message={error} />
        </>
      )}
    </section>
  );
}
