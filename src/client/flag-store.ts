/**
 * The flags a client holds, and the rules that keep them moving only forward
 * (`docs/protocol.md` §5.1): a snapshot of the same epoch older than what is held is
 * ignored; a stream update is applied only if its revision is newer than everything
 * applied so far. Every applied change is reported, so the client can emit it.
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
  #revision = -1;
  #loaded = false;

  get loaded(): boolean {
    return this.#loaded;
  }

  get revision(): number | undefined {
    return this.#revision < 0 ? undefined : this.#revision;
  }

  /** The stream id to resume from: the last snapshot or update applied. */
  get lastEventId(): string | undefined {
    return this.#epoch === undefined || this.#revision < 0 ? undefined : `${this.#epoch}:${this.#revision}`;
  }

  /**
   * Replaces every flag with a snapshot. Returns the changes, or `undefined` when the
   * snapshot is older than what is held (same epoch, lower revision).
   */
  replace(snapshot: SdkSnapshot): FlagChange[] | undefined {
    if (snapshot.epoch === this.#epoch && snapshot.revision < this.#revision) return undefined;
    const changes: FlagChange[] = [];
    const next = snapshot.flags;
    for (const [key, before] of this.flags) {
      const after = Object.hasOwn(next, key) ? next[key] : undefined;
      if (!after) {
        this.#remove(key);
        changes.push({ key, before, after: undefined });
      }
    }
    for (const key of Object.keys(next)) {
      const after = next[key]!;
      const before = this.flags.get(key);
      if (before && same(before, after)) continue;
      this.#set(after);
      changes.push({ key, before, after });
    }
    this.#epoch = snapshot.epoch;
    this.#revision = snapshot.revision;
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
    this.#revision = id.revision;
    const before = this.flags.get(update.key);
    if (before && before.version >= update.version) return { kind: 'applied', change: undefined, gap };
    if (update.deleted) {
      if (!before) return { kind: 'applied', change: undefined, gap };
      this.#remove(update.key);
      return { kind: 'applied', change: { key: update.key, before, after: undefined }, gap };
    }
    const after = sdkFlag(update, update.version);
    this.#set(after);
    return { kind: 'applied', change: { key: update.key, before, after }, gap };
  }
}
