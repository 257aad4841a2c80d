/**
 * The busy/error bookkeeping of one async action (a form's submit, a dialog's confirm).
 * `run(fn)` marks the action busy while `fn` runs; a failure keeps its message (`messageOf`,
 * so the server's own words) until the next success clears it. A 401 has already shown the
 * sign-in screen by then (`api()` does that). Resolves to whether `fn` succeeded.
 */
import { useState } from 'preact/hooks';
import { messageOf } from './api.js';

export interface Action {
  busy: boolean;
  error: string | undefined;
  setError: (message: string | undefined) => void;
  run: (fn: () => Promise<unknown>) => Promise<boolean>;
}

export function useAction(initialError?: string): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(initialError);
  const run = async (fn: () => Promise<unknown>): Promise<boolean> => {
    setBusy(true);
    try {
      await fn();
      setError(undefined);
      return true;
    } catch (err) {
      setError(messageOf(err));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, run };
}
