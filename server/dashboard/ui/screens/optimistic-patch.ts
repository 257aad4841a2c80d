/**
 * Changes a flag at once on screen and then on the server. When the server refuses or cannot be
 * reached, the fields it changed go back to what they were (unless a later change of the same
 * field is already on its way), and a refusal reloads the list to show the server's truth (an
 * unreachable server is reloaded from when the live feed is back).
 */
import { useRef } from 'preact/hooks';
import type { UpdateFlagInput } from '../../../../src/core/types.js';
import { ApiError, api, envApi, messageOf } from '../api.js';
import type { Resource } from '../resource.js';
import type { Flag } from '../types.js';
import type { PatchOutcome } from './flag-row.js';

export function useOptimisticPatch(project: string, env: string, flags: Resource<Flag[]>) {
  const seq = useRef(0);
  /** The newest change per `key` and per `key\nfield`. */
  const newest = useRef(new Map<string, number>());

  return async (key: string, change: UpdateFlagInput): Promise<PatchOutcome> => {
    const mine = ++seq.current;
    const fields = Object.keys(change);
    const before = flags.data?.find((f) => f.key === key) as Record<string, unknown> | undefined;
    newest.current.set(key, mine);
    for (const field of fields) newest.current.set(`${key}\n${field}`, mine);
    const replace = (update: (f: Flag) => Flag) =>
      flags.mutate((list) => list.map((f) => (f.key === key ? update(f) : f)));
    replace((f) => ({ ...f, ...change }) as Flag);
    try {
      const saved = await api<Flag>(envApi(project, env, 'flags', key), { method: 'PATCH', body: change });
      // A later change of this flag still on its way keeps showing until its own answer.
      if (newest.current.get(key) === mine) replace(() => saved);
      return { ok: true };
    } catch (err) {
      const undo: Record<string, unknown> = {};
      for (const field of fields) {
        if (before && newest.current.get(`${key}\n${field}`) === mine) undo[field] = before[field];
      }
      replace((f) => ({ ...f, ...undo }) as Flag);
      const network = err instanceof ApiError && err.status === 0;
      if (!network) flags.reload();
      return { ok: false, message: messageOf(err), network };
    }
  };
}
