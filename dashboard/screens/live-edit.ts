/**
 * An edit of one thing the server keeps (a flag's targeting, a segment), live: loaded with its
 * version (`ETag`, `docs/protocol.md` §3.3), reloaded whenever the environment changes (the
 * dashboard's event stream), and never overwritten while it is being edited. An untouched edit
 * follows every change made elsewhere; an edit in progress keeps its changes, and `elsewhere`
 * holds the newer saved version until the user chooses: reload it (the edit is dropped), merge
 * (`../targeting/merge.ts`, then `rebase`), or keep editing (what only they changed is taken,
 * the rest of the edit stays; the review before saving compares with their version). `save`
 * sends the edit against `version` (`If-Match`); refused `412`, it writes nothing and the
 * version it answers becomes `elsewhere`, to merge.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, ifMatch, preconditionFailed, versionOf } from '../api.js';
import { useEnvChanges } from '../events.js';
import { useResource } from '../resource.js';
import { same } from '../targeting/diff.js';
import { type Choice, merged } from '../targeting/merge.js';

/** What the server answered and the version it named. */
export interface Versioned<T> {
  value: T;
  version: number;
}

export interface LiveEdit<T, D> {
  /** The saved version the edit goes on from. */
  saved: T | undefined;
  /** Its version: a save's `If-Match`. */
  version: number | undefined;
  draft: D | undefined;
  setDraft: (update: (draft: D) => D) => void;
  /** Whether the edit differs from `saved`. */
  dirty: boolean;
  /** A newer saved version, changed elsewhere while this was being edited. */
  elsewhere: Versioned<T> | undefined;
  /** Drops the edit for the newer version. */
  reload: () => void;
  /**
   * Goes on from the newer version with the edit merged into it (`../targeting/merge.ts`): what
   * only it changed is taken, each field both changed as `choice` says ("keep editing": yours).
   * Answers the merged draft.
   */
  merge: (choice: (field: string) => Choice) => D | undefined;
  /** Drops the edit: back to `saved`. */
  discard: () => void;
  /**
   * `PATCH`es `body` against `version`: `true` when saved (the answer is edited afresh), `false`
   * when it had moved (`412`: nothing written, `elsewhere` holds it as it is now); other
   * refusals throw. While it is out, loads are not compared (its own echo is no change from elsewhere).
   */
  save: (body: unknown) => Promise<boolean>;
  /** Stops (or resumes, loading it afresh) following changes: while this page deletes the thing, say. */
  hold: (held: boolean) => void;
  /** The last load's failure. */
  error: string | undefined;
}

export function useLiveEdit<T, D>(path: string, envId: string, toDraft: (value: T) => D): LiveEdit<T, D> {
  const resource = useResource(async (): Promise<Versioned<T>> => {
    const { data, headers } = await call<T>(path);
    return { value: data, version: versionOf(headers) };
  }, path);
  const held = useRef(false);
  useEnvChanges(envId, () => !held.current && resource.reload());
  const [saved, setSaved] = useState<Versioned<T>>();
  const [draft, setDraftState] = useState<D>();
  const [elsewhere, setElsewhere] = useState<Versioned<T>>();
  const [saving, setSaving] = useState(false);
  const loaded = resource.data;
  const dirty = saved !== undefined && draft !== undefined && !same(draft, toDraft(saved.value));

  /** Goes on from `next`, with `edit` as the draft; a pending newer version stays. */
  const goOn = (next: Versioned<T>, edit: D) => {
    setSaved(next);
    setDraftState(edit);
    setElsewhere((e) => (e && e.version > next.version ? e : undefined));
  };
  /** A newer version than the one edited, from a load or a refusal. */
  const newer = (next: Versioned<T>): void => {
    if (saved && next.version <= saved.version) return;
    if (saved && dirty && !same(next.value, saved.value)) {
      setElsewhere((e) => (e && e.version >= next.version ? e : next));
    } else goOn(next, saved && dirty ? draft! : toDraft(next.value));
  };
  const merge = (choice: (field: string) => Choice): D | undefined => {
    if (!elsewhere || !saved || !draft) return undefined;
    const [base, theirs] = [toDraft(saved.value), toDraft(elsewhere.value)];
    const edit = merged(base, theirs, draft, Object.keys({ ...theirs, ...draft }), choice);
    goOn(elsewhere, edit);
    return edit;
  };

  // biome-ignore lint/correctness/useExhaustiveDependencies: compares each new load with what is edited
  useEffect(() => {
    if (loaded !== undefined && !saving) newer(loaded);
  }, [loaded, saving, saved]);

  return {
    saved: saved?.value,
    version: saved?.version,
    draft,
    setDraft: (update) => setDraftState((d) => (d === undefined ? d : update(d))),
    dirty,
    elsewhere,
    reload: () => elsewhere && goOn(elsewhere, toDraft(elsewhere.value)),
    merge,
    discard: () => saved !== undefined && setDraftState(toDraft(saved.value)),
    save: async (body) => {
      setSaving(true);
      try {
        const answer = await call<T>(path, { method: 'PATCH', body, headers: ifMatch(saved?.version) });
        const next = { value: answer.data, version: versionOf(answer.headers) };
        goOn(next, toDraft(next.value));
        resource.mutate((d) => (d.version > next.version ? d : next));
        return true;
      } catch (err) {
        const now = preconditionFailed<T>(err);
        if (!now) throw err;
        newer({ value: now.current, version: now.version });
        return false;
      } finally {
        setSaving(false);
      }
    },
    hold: (on) => {
      held.current = on;
      // Following again: whatever changed meanwhile is loaded.
      if (!on) resource.reload();
    },
    error: resource.error,
  };
}
