/**
 * An edit of one thing the server keeps (a flag's targeting, a segment), live: loaded, reloaded
 * whenever the environment changes (the dashboard's event stream), and never overwritten while
 * it is being edited. An untouched edit follows every change made elsewhere; an edit in progress
 * keeps its changes, and `elsewhere` holds the newer saved version until the user chooses to
 * reload it (the edit is dropped) or to keep editing (the edit now goes on from it, and the
 * review before saving compares with it).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.js';
import { useEnvChanges } from '../events.js';
import { useResource } from '../resource.js';
import { same } from '../targeting/diff.js';

export interface LiveEdit<T, D> {
  /** The saved version the edit goes on from. */
  saved: T | undefined;
  draft: D | undefined;
  setDraft: (update: (draft: D) => D) => void;
  /** Whether the edit differs from `saved`. */
  dirty: boolean;
  /** A newer saved version, changed elsewhere while this was being edited. */
  elsewhere: T | undefined;
  /** Drops the edit for the newer version. */
  reload: () => void;
  /** Goes on editing from the newer version. */
  keep: () => void;
  /** Drops the edit: back to `saved`. */
  discard: () => void;
  /** While a save is out, loads are not compared (the save's own echo is no change from elsewhere). */
  setSaving: (saving: boolean) => void;
  /** The save's answer: the new saved version, edited afresh. */
  onSaved: (value: T) => void;
  /** Stops (or resumes) following changes: while this page deletes the thing, say. */
  hold: (held: boolean) => void;
  /** The last load's failure. */
  error: string | undefined;
}

export function useLiveEdit<T, D>(path: string, envId: string, toDraft: (value: T) => D): LiveEdit<T, D> {
  const resource = useResource(() => api<T>(path), path);
  const held = useRef(false);
  useEnvChanges(envId, () => !held.current && resource.reload());
  const [saved, setSaved] = useState<T>();
  const [draft, setDraftState] = useState<D>();
  const [elsewhere, setElsewhere] = useState<T>();
  const [saving, setSaving] = useState(false);
  const loaded = resource.data;
  const dirty = saved !== undefined && draft !== undefined && !same(draft, toDraft(saved));

  // biome-ignore lint/correctness/useExhaustiveDependencies: compares each new load with what is shown
  useEffect(() => {
    if (loaded === undefined || saving) return;
    if (saved === undefined || (!dirty && !same(loaded, saved))) {
      setSaved(loaded);
      setDraftState(toDraft(loaded));
      setElsewhere(undefined);
    } else if (!same(loaded, saved) && !same(loaded, elsewhere)) setElsewhere(loaded);
    else if (same(loaded, saved)) setElsewhere(undefined);
  }, [loaded, saving, saved]);

  return {
    saved,
    draft,
    setDraft: (update) => setDraftState((d) => (d === undefined ? d : update(d))),
    dirty,
    elsewhere,
    reload: () => {
      if (elsewhere === undefined) return;
      setSaved(elsewhere);
      setDraftState(toDraft(elsewhere));
      setElsewhere(undefined);
    },
    keep: () => {
      if (elsewhere === undefined) return;
      setSaved(elsewhere);
      setElsewhere(undefined);
    },
    discard: () => saved !== undefined && setDraftState(toDraft(saved)),
    setSaving,
    onSaved: (value) => {
      setSaved(value);
      setDraftState(toDraft(value));
      setElsewhere(undefined);
      resource.mutate(() => value);
    },
    hold: (on) => {
      held.current = on;
    },
    error: resource.error,
  };
}
