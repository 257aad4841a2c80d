/**
 * The flags a client holds, and the rules that keep them moving only forward
 * (`docs/protocol.md` §9): a stream update is applied only if its revision is newer than
 * everything applied so far; a snapshot of the same epoch older than the stream position is
 * merged under the updates applied after it (a flag changed or deleted after the snapshot
 * keeps its newer state), and one older than the last snapshot is ignored. Updates that skip
 * revisions leave them missing until a snapshot covers them. Every applied change is
 * reported, so the client can emit it.
 */
import { type Murmur3Prefix, murmur3Prefix } from '../core/murmur3.js';
import { sdkFlag } from '../core/sdk-flag.js';
import type { Flag, SdkFlag, SdkFlagUpdate, SdkSnapshot } from '../core/types.js';
import type { FlagChange } from './types.js';

/** What applying an update did: the change, nothing (old or repeated), or a detected gap. */
export type UpdateOutcome =
  | { kind: 'applied'; change: FlagChange | undefined; gap: boolean }
  | { kind: 'stale' }
  | { kind: 'foreign' };

const same = (a: SdkFlag, b: SdkFlag): boolean =>
  a.type === b.type && a.enabled === b.enabled && a.percentage === b.percentage && a.version === b.version;

/** Parses `<epoch>:<revision>`. */
export function parseEventId(id: string | undefined): { epoch: string; revision: number } | undefined {
  if (!id) return undefined;
  const colon = id.lastIndexOf(':');
  const digits = id.slice(colon + 1);
  // As strict as the server (`docs/protocol.md` §5.1): decimal digits only, so no "1e3", " 7"
  // or "0x10" can jump the revision forward and make every later event look stale.
  if (colon <= 0 || !/^\d{1,15}$/.test(digits)) return undefined;
  return { epoch: id.slice(0, colon), revision: Number(digits) };
}

export class FlagStore {
  /** The flags, by key: read directly by evaluation. */
  readonly flags = new Map<string, SdkFlag>();
  /** Hash state of `key + ':'` for every rollout flag, so evaluation hashes only the user key. */
  readonly prefixes = new Map<string, Murmur3Prefix>();
  #epoch: string | undefined;
  /** The newest revision applied (snapshot or update). */
  #revision = -1;
  /** The revision of the last snapshot applied. */
  #base = -1;
  /** Revisions up to this one were skipped by the stream and no snapshot has covered them yet. */
  #missingUntil = -1;
  /** Revision of each deletion applied from the stream after the last snapshot (for merges). */
  readonly #deletedAt = new Map<string, number>();
  #loaded = false;

  get loaded(): boolean {
    return this.#loaded;
  }

  get revision(): number | undefined {
    return this.#revision < 0 ? undefined : this.#revision;
  }

  /** The epoch of the flags held. */
  get epoch(): string | undefined {
    return this.#epoch;
  }

  /** Whether the stream skipped revisions that no snapshot has covered yet. */
  get missing(): boolean {
    return this.#missingUntil > this.#base;
  }

  /** The stream id to resume from: the last snapshot or update applied. */
  get lastEventId(): string | undefined {
    return this.#epoch === undefined || this.#revision < 0 ? undefined : `${this.#epoch}:${this.#revision}`;
  }

  /**
   * Applies a snapshot. A snapshot of another epoch, or at or past the stream position,
   * replaces every flag; an older one of the same epoch (but not older than the last
   * snapshot) is merged under the updates applied after it. Returns the changes, or
   * `undefined` when the snapshot is older than the last one applied.
   */
  replace(snapshot: SdkSnapshot): FlagChange[] | undefined {
    const sameEpoch = snapshot.epoch === this.#epoch;
    if (sameEpoch && snapshot.revision < this.#base) return undefined;
    const merge = sameEpoch && snapshot.revision < this.#revision;
    /** Whether the held state of `key` is newer than the snapshot (merges only). */
    const newer = (key: string): boolean =>
      merge &&
      ((this.flags.get(key)?.version ?? -1) > snapshot.revision ||
        (this.#deletedAt.get(key) ?? -1) > snapshot.revision);
    const changes: FlagChange[] = [];
    const next = snapshot.flags;
    for (const [key, before] of this.flags) {
      if (Object.hasOwn(next, key) || newer(key)) continue;
      this.#remove(key);
      changes.push({ key, before, after: undefined });
    }
    for (const key of Object.keys(next)) {
      const after = next[key]!;
      const before = this.flags.get(key);
      if ((before && same(before, after)) || newer(key)) continue;
      this.#set(after);
      changes.push({ key, before, after });
    }
    for (const [key, at] of this.#deletedAt)
      if (!merge || at <= snapshot.revision) this.#deletedAt.delete(key);
    if (!sameEpoch) this.#missingUntil = -1;
    this.#epoch = snapshot.epoch;
    this.#base = snapshot.revision;
    if (!merge) this.#revision = snapshot.revision;
    this.#loaded = true;
    return changes;
  }

  /** Loads flags in the management representation (a bootstrap without revision). */
  replaceWithFlags(flags: readonly Flag[]): FlagChange[] {
    const map: Record<string, SdkFlag> = {};
    for (const f of flags) map[f.key] = sdkFlag(f, 0);
    const changes = this.replace({ epoch: '', revision: -1, eventId: '', flags: map }) ?? [];
    this.#epoch = undefined;
    this.#revision = -1;
    this.#base = -1;
    return changes;
  }

  #set(flag: SdkFlag): void {
    this.flags.set(flag.key, flag);
    if (flag.type === 'rollout' && !this.prefixes.has(flag.key))
      this.prefixes.set(flag.key, murmur3Prefix(`${flag.key}:`));
  }

  #remove(key: string): void {
    this.flags.delete(key);
    this.prefixes.delete(key);
  }

  /** Sets one flag outside the server's history (the test client): reports the change. */
  put(flag: SdkFlag): FlagChange {
    const before = this.flags.get(flag.key);
    this.#set(flag);
    this.#loaded = true;
    return { key: flag.key, before, after: flag };
  }

  /** Removes one flag outside the server's history (the test client). */
  drop(key: string): FlagChange | undefined {
    const before = this.flags.get(key);
    if (!before) return undefined;
    this.#remove(key);
    return { key, before, after: undefined };
  }

  /** Applies one `flags:updated` event. */
  apply(update: SdkFlagUpdate, eventId: string | undefined): UpdateOutcome {
    const id = parseEventId(eventId);
    if (!id || id.epoch !== this.#epoch) return { kind: 'foreign' };
    if (id.revision <= this.#revision) return { kind: 'stale' };
    const gap = id.revision > this.#revision + 1;
    if (gap) this.#missingUntil = Math.max(this.#missingUntil, id.revision - 1);
    this.#revision = id.revision;
    const before = this.flags.get(update.key);
    if (before && before.version >= update.version) return { kind: 'applied', change: undefined, gap };
    if (update.deleted) {
      this.#deletedAt.set(update.key, update.version);
      if (!before) return { kind: 'applied', change: undefined, gap };
      this.#remove(update.key);
      return { kind: 'applied', change: { key: update.key, before, after: undefined }, gap };
    }
    this.#deletedAt.delete(update.key);
    const after = sdkFlag(update, update.version);
    this.#set(after);
    return { kind: 'applied', change: { key: update.key, before, after }, gap };
  }
}
