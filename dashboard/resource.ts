/**
 * Loads something from the API and keeps it fresh. `reload()` may be called as often as events
 * arrive: while a load is out, further calls make one more load after it (never a pile-up, and
 * the newest answer always wins). Changing `key` starts over with empty data.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { messageOf } from './api.js';

interface Run {
  busy: boolean;
  again: boolean;
}

export interface Resource<T> {
  data: T | undefined;
  /** The last load's failure, if it failed. */
  error: string | undefined;
  reload: () => void;
  /** Local update after an action, until the next load replaces it. */
  mutate: (update: (data: T) => T) => void;
}

export function useResource<T>(load: () => Promise<T>, key: string): Resource<T> {
  const [state, setState] = useState<{ data: T | undefined; error: string | undefined }>({
    data: undefined,
    error: undefined,
  });
  const loadRef = useRef(load);
  loadRef.current = load;
  const run = useRef<Run>({ busy: false, again: false });

  const reload = useCallback(() => {
    const current = run.current;
    if (current.busy) {
      current.again = true;
      return;
    }
    current.busy = true;
    loadRef
      .current()
      .then(
        (data) => current === run.current && setState({ data, error: undefined }),
        (error: unknown) => current === run.current && setState((s) => ({ ...s, error: messageOf(error) })),
      )
      .finally(() => {
        current.busy = false;
        if (current === run.current && current.again) {
          current.again = false;
          reload();
        }
      });
  }, []);

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new key (another resource) starts afresh
  useEffect(() => {
    run.current = { busy: false, again: false };
    setState({ data: undefined, error: undefined });
    reload();
  }, [key, reload]);

  const mutate = useCallback((update: (data: T) => T) => {
    setState((s) => (s.data === undefined ? s : { ...s, data: update(s.data) }));
  }, []);

  return { data: state.data, error: state.error, reload, mutate };
}
