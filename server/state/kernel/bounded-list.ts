/**
 * A list that grows at its end and is cut at its front, held to a count and to bytes of JSON
 * (the newest item always stays): an environment's history (`../flags/history.ts`) and the audit
 * lists (`audit.ts`). Its running tally (bytes, and the ids of its items when they have them) is
 * kept beside it; a tally whose length, first and last items still match the list is right, any
 * other (a list restored from a snapshot, or put back after a failed commit) is counted again
 * from the sizes already measured (`jsonBytes`).
 */
import { jsonBytes } from './json-bytes.js';

/** What a bounded list's tally knows: its bytes, and what it was counted for. */
export interface Tally<T> {
  bytes: number;
  length: number;
  first: T | undefined;
  last: T | undefined;
  /** The ids of its items, when the list is one of items with ids (`idOf`). */
  ids: Set<string> | undefined;
}

const tallies = new WeakMap<object[], Tally<object>>();

/** The tally of `list`; with `idOf`, it knows the ids of its items too. */
export function tallyOf<T extends object>(list: T[], idOf?: (item: T) => string): Tally<T> {
  const tally = tallies.get(list) as Tally<T> | undefined;
  if (
    tally &&
    tally.length === list.length &&
    tally.first === list[0] &&
    tally.last === list.at(-1) &&
    (idOf === undefined || tally.ids !== undefined)
  )
    return tally;
  const fresh: Tally<T> = {
    bytes: 0,
    length: list.length,
    first: list[0],
    last: list.at(-1),
    ids: idOf && new Set(),
  };
  for (const item of list) {
    fresh.bytes += jsonBytes(item);
    if (idOf) fresh.ids!.add(idOf(item));
  }
  tallies.set(list, fresh as Tally<object>);
  return fresh;
}

/** Appends `item`, measured once, to `list` and its tally (its id too, with `idOf`). */
export function pushCounted<T extends object>(list: T[], item: T, idOf?: (item: T) => string): void {
  const tally = tallyOf(list, idOf);
  list.push(item);
  tally.bytes += jsonBytes(item);
  if (idOf) tally.ids!.add(idOf(item));
  tally.length = list.length;
  tally.first = list[0];
  tally.last = item;
}

/**
 * Drops the oldest items past `limit`, then past `maxBytes` of JSON; the newest item always
 * stays. Live, on replay and on restore alike, so a restart rebuilds the same list.
 */
export function boundList<T extends object>(
  list: T[],
  limit: number,
  maxBytes: number,
  idOf?: (item: T) => string,
): void {
  const tally = tallyOf(list, idOf);
  let drop = Math.max(0, list.length - limit);
  for (let i = 0; i < drop; i++) tally.bytes -= jsonBytes(list[i]!);
  while (tally.bytes > maxBytes && list.length - drop > 1) tally.bytes -= jsonBytes(list[drop++]!);
  if (idOf) for (let i = 0; i < drop; i++) tally.ids!.delete(idOf(list[i]!));
  if (drop > 0) list.splice(0, drop);
  tally.length = list.length;
  tally.first = list[0];
  tally.last = list.at(-1);
}

/** Forgets `list`'s tally: it changed in place where the length, first and last items may not show it. */
export function recount(list: object[]): void {
  tallies.delete(list);
}
