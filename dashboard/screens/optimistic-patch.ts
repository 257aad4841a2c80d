/**
 * Changes a flag at once on screen and then on the server. When the server refuses or cannot be
 * reached, the fields it changed go back to what they were (unless a later change of the same
 * field is already on its way), and a refusal reloads the list to show the server's truth (an
 * unreachable server is reloaded from when the live feed is back).
 *
 * Each change names the version of the flag the user began it from (`If-Match`, the admin list
 * answers each flag's `version`). When the flag moved since (`412`), the change is sent again
 * against the new version only if none of the fields it sets was changed meanwhile: someone
 * else's change of another field is kept, one of the same field is never overwritten unseen.
 * Changes of one flag go one after another, so each can name the version the last one made.
 */
import { useRef } from 'preact/hooks';
import type { UpdateFlagInput } from '../../src/core/types.js';
import {
  ApiError,
  CHANGED_ELSEWHERE,
  call,
  envApi,
  ifMatch,
  messageOf,
  preconditionFailed,
  versionOf,
} from '../api.js';
import type { Resource } from '../resource.js';
import { same } from '../targeting/diff.js';
import type { Flag } from '../types.js';

/** A flag as the admin list answers it: with its version (`docs/protocol.md` §10.3). */
export type ListedFlag = Flag & { version?: number };

/** What became of a change: saved, or why not (`network`: unreachable; `current`: the flag moved, as it is now). */
export type PatchOutcome =
  | { ok: true }
  | { ok: false; message: string; network: boolean; current?: ListedFlag | undefined };

export function useOptimisticPatch(project: string, env: string, flags: Resource<ListedFlag[]>) {
  const seq = useRef(0);
  /** The newest change per `key` and per `key\nfield`. */
  const newest = useRef(new Map<string, number>());
  /** Per flag, the last change sent: the next waits for its answer. */
  const last = useRef(new Map<string, Promise<unknown>>());

  /** `began`: the flag as shown when the user began the change (its version, its fields' values). */
  return async (key: string, change: UpdateFlagInput, began: ListedFlag): Promise<PatchOutcome> => {
    const mine = ++seq.current;
    const fields = Object.keys(change) as Array<keyof UpdateFlagInput>;
    const before = flags.data?.find((f) => f.key === key) as Record<string, unknown> | undefined;
    newest.current.set(key, mine);
    for (const field of fields) newest.current.set(`${key}\n${field}`, mine);
    const replace = (update: (f: ListedFlag) => ListedFlag) =>
      flags.mutate((list) => list.map((f) => (f.key === key ? update(f) : f)));
    replace((f) => ({ ...f, ...change }) as ListedFlag);
    const send = async () => {
      let version = began.version;
      for (let tries = 1; ; tries++) {
        try {
          return await call<Flag>(envApi(project, env, 'flags', key), {
            method: 'PATCH',
            body: change,
            headers: ifMatch(version),
          });
        } catch (err) {
          const now = preconditionFailed<Record<string, unknown>>(err);
          const [shown, sent] = [began, change] as unknown as Array<Record<string, unknown>>;
          const moved = (f: string) => !same(now?.current[f], shown![f]) && !same(now?.current[f], sent![f]);
          if (!now || fields.some(moved) || tries === 3) throw err;
          version = now.version;
        }
      }
    };
    const sent = (last.current.get(key) ?? Promise.resolve()).then(send, send);
    last.current.set(
      key,
      sent.catch(() => {}),
    );
    try {
      const { data, headers } = await sent;
      // A later change of this flag still on its way keeps showing until its own answer.
      if (newest.current.get(key) === mine) replace(() => ({ ...data, version: versionOf(headers) }));
      return { ok: true };
    } catch (err) {
      const undo: Record<string, unknown> = {};
      for (const field of fields) {
        if (before && newest.current.get(`${key}\n${field}`) === mine) undo[field] = before[field];
      }
      replace((f) => ({ ...f, ...undo }) as ListedFlag);
      const network = err instanceof ApiError && err.status === 0;
      if (!network) flags.reload();
      const now = preconditionFailed<Flag>(err);
      return now
        ? {
            ok: false,
            message: CHANGED_ELSEWHERE,
            network,
            current: { ...now.current, version: now.version },
          }
        : { ok: false, message: messageOf(err), network };
    }
  };
}
