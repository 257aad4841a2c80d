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
import type { SdkFlag, SdkFlagUpdate, SdkSnapshot } from '../core/types.js';
import type { FlagChange } from './types.js';

/**
 * What applying an update did: nothing (`stale`: old or repeated), nothing because it is of
 * another epoch or has no usable id (`foreign`), or applied: its change (none if the flag was
 * newer already) and whether it skipped revisions (a gap).
 */
export type UpdateOutcome = 'stale' | 'foreign' | { change: FlagChange | undefined; gap: boolean };

/** Parses `<epoch>:<revision>`. */
export function parseEventId(id: string | undefined): { epoch: string; revision: number } | undefined {
  // The epoch is anything up to the last ':'. As strict as the server (`docs/protocol.md` §5.1):
  // decimal digits only, so no "1e3", " 7" or "0x10" can jump the revision forward and make
  // every later event look stale.
  const match = /^(.+):(\d{1,15})$/s.exec(id ?? '');
  return match ? { epoch: match[1]!, revision: Number(match[2]) } : undefined;
}

export class FlagStore {
  /** The flags, by key: read directly by evaluation. */
  readonly flags = new Map<string, SdkFlag>();
  /** Hash state of `key + ':'` for every rollout flag, so evaluation hashes only the user key. */
  readonly prefixes = new Map<string, Murmur3Prefix>();
  /** The epoch of the flags held (set by the store only). */
  epoch: string | undefined;
  /** Whether a snapshot (or a flag) was ever applied (set by the store only). */
  loaded = false;
  /** The newest revision applied (snapshot or update). */
  #revision = -1;
  /** The revision of the last snapshot applied. */
  #base = -1;
  /** Revisions up to this one were skipped by the stream and no snapshot has covered them yet. */
  #missingUntil = -1;
  /** Revision of each deletion applied from the stream after the last snapshot (for merges). */
  readonly #deletedAt = new Map<string, number>();

  get revision(): number | undefined {
    return this.#revision < 0 ? undefined : this.#revision;
  }

  /** Whether the stream skipped revisions that no snapshot has covered yet. */
  get missing(): boolean {
    return this.#missingUntil > this.#base;
  }

  /** The stream id to resume from: the last snapshot or update applied. */
  get lastEventId(): string | undefined {
    // A revision comes with its epoch (a bootstrap of flags has neither).
    return this.#revision < 0 ? undefined : `${this.epoch}:${this.#revision}`;
  }

  /**
   * Applies a snapshot. A snapshot of another epoch, or at or past the stream position,
   * replaces every flag; an older one of the same epoch (but not older than the last
   * snapshot) is merged under the updates applied after it. Returns the changes, or
   * `undefined` when the snapshot is older than the last one applied.
   */
  replace({ epoch, revision, flags: next }: SdkSnapshot): FlagChange[] | undefined {
    const sameEpoch = epoch === this.epoch;
    if (sameEpoch && revision < this.#base) return undefined;
    const merge = sameEpoch && revision < this.#revision;
    /** Whether the held state of `key` is newer than the snapshot (merges only). */
    const newer = (key: string): boolean =>
      merge &&
      ((this.flags.get(key)?.version ?? -1) > revision || (this.#deletedAt.get(key) ?? -1) > revision);
    const changes: FlagChange[] = [];
    for (const key of this.flags.keys())
      if (!Object.hasOwn(next, key) && !newer(key)) changes.push(this.drop(key)!);
    for (const key of Object.keys(next)) {
      const after = next[key]!;
      const before = this.flags.get(key);
      const same =
        before?.type === after.type &&
        before.enabled === after.enabled &&
        before.percentage === after.percentage &&
        before.version === after.version;
      if (!same && !newer(key)) changes.push(this.put(after));
    }
    for (const [key, at] of this.#deletedAt) if (!merge || at <= revision) this.#deletedAt.delete(key);
    if (!sameEpoch) this.#missingUntil = -1;
    this.epoch = epoch;
    this.#base = revision;
    if (!merge) this.#revision = revision;
    this.loaded = true;
    return changes;
  }

  /** Sets one flag (also outside the server's history: the test client) and reports the change. */
  put(flag: SdkFlag): FlagChange {
    const { key } = flag;
    const before = this.flags.get(key);
    this.flags.set(key, flag);
    if (flag.type === 'rollout') this.prefixes.set(key, murmur3Prefix(`${key}:`));
    this.loaded = true;
    return { key, before, after: flag };
  }

  /** Removes one flag (also outside the server's history: the test client); `undefined` if absent. */
  drop(key: string): FlagChange | undefined {
    const before = this.flags.get(key);
    if (!before) return undefined;
    this.flags.delete(key);
    this.prefixes.delete(key);
    return { key, before, after: undefined };
  }

  /** Applies one `flags:updated` event. */
  apply(update: SdkFlagUpdate, eventId: string | undefined): UpdateOutcome {
    const id = parseEventId(eventId);
    if (!id || id.epoch !== this.epoch) return 'foreign';
    if (id.revision <= this.#revision) return 'stale';
    const gap = id.revision > this.#revision + 1;
    // Never below an earlier gap: those ended below the revision held.
    if (gap) this.#missingUntil = id.revision - 1;
    this.#revision = id.revision;
    const { key, version } = update;
    const before = this.flags.get(key);
    let change: FlagChange | undefined;
    if (!(before && before.version >= version)) {
      if (update.deleted) {
        this.#deletedAt.set(key, version);
        change = this.drop(key);
      } else {
        this.#deletedAt.delete(key);
        change = this.put(sdkFlag(update, version));
      }
    }
    return { change, gap };
  }
}
