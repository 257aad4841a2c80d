/**
 * Deleting a segment: asked first, made against the version the page shows (`If-Match`: one
 * changed elsewhere meanwhile is refused `412` and not deleted); refused by the server while a
 * flag's rules name it (`409 CONFLICT`, `docs/protocol.md` §12.3), and then the refusal is shown
 * with a link to each flag it names, so the user can go and take the segment out of their rules.
 */
import { useState } from 'preact/hooks';
import { ApiError, api, CHANGED_ELSEWHERE, envApi, ifMatch, messageOf } from '../../api.js';
import { Dialog } from '../../components/dialog.js';
import { envHref, navigate } from '../../route.js';

/** The flags a `409` names (`segment "beta" is used by "a", "b": ...`), in its own words. */
export function flagsNamed(message: string): string[] {
  const list = /is used by (.*): /s.exec(message)?.[1] ?? '';
  return [...list.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1]}"`) as string);
}

interface Props {
  project: string;
  env: string;
  segmentKey: string;
  /** The version shown: what is deleted. */
  version: number | undefined;
  /** Whether the page follows changes to the segment: not while it is being deleted from here. */
  follow: (on: boolean) => void;
}

export function DeleteSegment({ project, env, segmentKey, version, follow }: Props) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<{ message: string; flags: string[] }>();
  const remove = async () => {
    setBusy(true);
    // Its own deletion is no change to reload the segment for (it would be a 404).
    follow(false);
    try {
      await api(envApi(project, env, 'segments', segmentKey), {
        method: 'DELETE',
        headers: ifMatch(version),
      });
      navigate(envHref(project, env, 'segments'));
    } catch (err) {
      follow(true);
      const flags = err instanceof ApiError && err.status === 409 ? flagsNamed(err.message) : [];
      const moved = err instanceof ApiError && err.status === 412;
      setRefusal({ message: moved ? CHANGED_ELSEWHERE : messageOf(err), flags });
    } finally {
      setBusy(false);
    }
  };
  const close = () => {
    setOpen(false);
    setRefusal(undefined);
  };
  return (
    <>
      <button type="button" class="danger" onClick={() => setOpen(true)}>
        Delete segment
      </button>
      {open && (
        <Dialog title={`Delete segment ${segmentKey}?`} onClose={close}>
          {refusal ? (
            <div role="alert" class="error">
              <p>Not deleted: {refusal.message}</p>
              {refusal.flags.length > 0 && (
                <ul>
                  {refusal.flags.map((k) => (
                    <li key={k}>
                      <a href={envHref(project, env, 'flags', k)} onClick={close}>
                        Open flag <bdi>{k}</bdi>
                      </a>
                    </li>
                  ))}
                </ul>
              )}
            </div>
          ) : (
            <p>Its users and rules are deleted with it. Flags cannot use it any more.</p>
          )}
          <div class="actions">
            {!refusal && (
              <button type="button" class="danger" disabled={busy} onClick={remove}>
                Delete segment
              </button>
            )}
            <button type="button" autofocus onClick={close}>
              {refusal ? 'Close' : 'Cancel'}
            </button>
          </div>
        </Dialog>
      )}
    </>
  );
}
