/**
 * The flags and segments a client holds, and the rules that keep them moving only forward
 * (`docs/protocol.md` §9): a stream update is applied only if its revision is newer than
 * everything applied so far; a snapshot of the same epoch older than the stream position is
 * merged under the updates applied after it (a flag or segment changed or deleted after the
 * snapshot keeps its newer state), and one older than the last snapshot is ignored. Updates that
 * skip revisions leave them missing until a snapshot covers them. Every applied change is
 * reported, and so is every flag whose answers it may change (one that names a changed segment
 * or lists a changed flag as a prerequisite, to any depth), so the client can emit them.
 *
 * Each flag is compiled when it arrives (`../core/targeting/compile.ts`): evaluation only reads.
 */
import { sdkFlag } from '../core/sdk-flag.js';
import { type CompiledSegment, compileFlag, compileSegment } from '../core/targeting/compile.js';
import type { TargetingContext } from '../core/targeting/evaluate.js';
import { runProgram } from '../core/targeting/patterns.js';
import { TARGETING_FIELDS } from '../core/targeting/types.js';
import type { SdkFlag, SdkFlagUpdate, SdkSegment, SdkSegmentUpdate, SdkSnapshot } from '../core/types.js';
import { dependents } from './dependents.js';
import type { FlagEntry } from './flag-entry.js';
import type { FlagChange } from './types.js';
import { counters } from './usage-counts.js';

/**
 * What applying an update did: nothing (`stale`: old or repeated), nothing because it is of
 * another epoch or has no usable id (`foreign`), or applied: its changes (none if the flag or
 * segment was newer already; a segment's are the flags that use it) and whether it skipped
 * revisions (a gap).
 */
export type UpdateOutcome = 'stale' | 'foreign' | { changes: FlagChange[]; gap: boolean };

/** Parses `<epoch>:<revision>`. */
export function parseEventId(id: string | undefined): { epoch: string; revision: number } | undefined {
  // The epoch is anything up to the last ':'. As strict as the server (`docs/protocol.md` §5.1):
  // decimal digits only, so no "1e3", " 7" or "0x10" can jump the revision forward and make
  // every later event look stale.
  const match = /^(.+):(\d{1,15})$/s.exec(id ?? '');
  return match ? { epoch: match[1]!, revision: Number(match[2]) } : undefined;
}

/** Variant values are handed to callers as they are (no copy per evaluation): frozen, deeply. */
function freeze(value: unknown): void {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) freeze(inner);
  }
}

/** Whether two flags of the same version are the same (a new epoch may reuse versions). */
const sameFlag = (a: SdkFlag | undefined, b: SdkFlag): boolean =>
  a?.type === b.type &&
  a.enabled === b.enabled &&
  a.percentage === b.percentage &&
  a.version === b.version &&
  TARGETING_FIELDS.every((field) => JSON.stringify(a[field]) === JSON.stringify(b[field]));

export class FlagStore {
  /** The flags as the server sent them, by key. */
  readonly flags = new Map<string, SdkFlag>();
  /** The flags as evaluation reads them, by key. */
  readonly entries = new Map<string, FlagEntry>();
  /** The segments as the server sent them (SDKs with the targeting capability), by key. */
  readonly segments = new Map<string, SdkSegment>();
  readonly #compiledSegments = new Map<string, CompiledSegment>();
  /** Where evaluation finds prerequisites and segments. */
  readonly context: TargetingContext = {
    flag: (key) => this.entries.get(key)?.compiled,
    segment: (key) => this.#compiledSegments.get(key),
  };
  /** The epoch of the flags held (set by the store only). */
  epoch: string | undefined;
  /** Whether a snapshot (or a flag) was ever applied (set by the store only). */
  loaded = false;
  /** Whether new entries count their evaluations (usage reports, `docs/protocol.md` §13). */
  counting = false;
  /** Entries replaced or dropped with counts not yet reported (while `counting`). */
  retired: FlagEntry[] = [];
  /** The newest revision applied (snapshot or update). */
  #revision = -1;
  /** The revision of the last snapshot applied. */
  #base = -1;
  /** Revisions up to this one were skipped by the stream and no snapshot has covered them yet. */
  #missingUntil = -1;
  /** Revision of each deletion applied from the stream after the last snapshot (for merges). */
  readonly #deletedAt = new Map<string, number>();
  readonly #segmentDeletedAt = new Map<string, number>();

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
   * replaces every flag and segment; an older one of the same epoch (but not older than the
   * last snapshot) is merged under the updates applied after it. Returns the changes, or
   * `undefined` when the snapshot is older than the last one applied.
   */
  replace({ epoch, revision, flags: next, segments = {} }: SdkSnapshot): FlagChange[] | undefined {
    const sameEpoch = epoch === this.epoch;
    if (sameEpoch && revision < this.#base) return undefined;
    const merge = sameEpoch && revision < this.#revision;
    /** Whether the held state of `key` is newer than the snapshot (merges only). */
    const newer = (key: string, held: { version: number } | undefined, deletedAt: Map<string, number>) =>
      merge && ((held?.version ?? -1) > revision || (deletedAt.get(key) ?? -1) > revision);
    const changes: FlagChange[] = [];
    const changedSegments = new Set<string>();
    for (const [key, held] of this.segments)
      if (!Object.hasOwn(segments, key) && !newer(key, held, this.#segmentDeletedAt)) {
        this.dropSegment(key);
        changedSegments.add(key);
      }
    for (const key of Object.keys(segments)) {
      const held = this.segments.get(key);
      const after = segments[key]!;
      if (held?.version !== after.version && !newer(key, held, this.#segmentDeletedAt)) {
        this.putSegment(after);
        changedSegments.add(key);
      }
    }
    for (const [key, held] of this.flags)
      if (!Object.hasOwn(next, key) && !newer(key, held, this.#deletedAt)) changes.push(this.drop(key)!);
    for (const key of Object.keys(next)) {
      const after = next[key]!;
      const held = this.flags.get(key);
      if (!sameFlag(held, after) && !newer(key, held, this.#deletedAt)) changes.push(this.put(after));
    }
    for (const deletedAt of [this.#deletedAt, this.#segmentDeletedAt])
      for (const [key, at] of deletedAt) if (!merge || at <= revision) deletedAt.delete(key);
    if (!sameEpoch) this.#missingUntil = -1;
    this.epoch = epoch;
    this.#base = revision;
    if (!merge) this.#revision = revision;
    this.loaded = true;
    return this.changed(changes, changedSegments);
  }

  /** Sets one flag (also outside the server's history: the test client) and reports the change. */
  put(flag: SdkFlag): FlagChange {
    const { key } = flag;
    const before = this.flags.get(key);
    freeze(flag.variants);
    const compiled = compileFlag(flag, runProgram);
    this.flags.set(key, flag);
    this.#retire(key);
    this.entries.set(key, {
      flag,
      compiled,
      n: this.counting ? counters(compiled.names.length) : undefined,
    });
    this.loaded = true;
    return { key, before, after: flag };
  }

  /** Removes one flag (also outside the server's history: the test client); `undefined` if absent. */
  drop(key: string): FlagChange | undefined {
    const before = this.flags.get(key);
    if (!before) return undefined;
    this.flags.delete(key);
    this.#retire(key);
    this.entries.delete(key);
    return { key, before, after: undefined };
  }

  /** Keeps the counts of `key`'s entry, which is about to be replaced or dropped, for the next report. */
  #retire(key: string): void {
    const n = this.entries.get(key)?.n;
    if (this.counting && n?.some(Boolean)) this.retired.push(this.entries.get(key)!);
  }

  /** Sets one segment (also outside the server's history: the test client). */
  putSegment(segment: SdkSegment): void {
    this.segments.set(segment.key, segment);
    this.#compiledSegments.set(segment.key, compileSegment(segment, runProgram));
  }

  /** Removes one segment (also outside the server's history: the test client). */
  dropSegment(key: string): void {
    this.segments.delete(key);
    this.#compiledSegments.delete(key);
  }

  /**
   * The changes, plus a change (`before` and `after` the same flag) for every other flag whose
   * answers `changes` and the segments `segmentKeys` may change.
   */
  changed(changes: FlagChange[], segmentKeys: Iterable<string>): FlagChange[] {
    const flagKeys = new Set(changes.map((change) => change.key));
    for (const key of dependents(this.flags.values(), flagKeys, new Set(segmentKeys))) {
      const flag = this.flags.get(key)!;
      changes.push({ key, before: flag, after: flag });
    }
    return changes;
  }

  /** Moves the stream position to `eventId`: `stale`, `foreign`, or whether it skipped revisions. */
  #advance(eventId: string | undefined): 'stale' | 'foreign' | boolean {
    const id = parseEventId(eventId);
    if (!id || id.epoch !== this.epoch) return 'foreign';
    if (id.revision <= this.#revision) return 'stale';
    const gap = id.revision > this.#revision + 1;
    // Never below an earlier gap: those ended below the revision held.
    if (gap) this.#missingUntil = id.revision - 1;
    this.#revision = id.revision;
    return gap;
  }

  /** Applies one `flags:updated` event. */
  apply(update: SdkFlagUpdate, eventId: string | undefined): UpdateOutcome {
    const gap = this.#advance(eventId);
    if (typeof gap !== 'boolean') return gap;
    const { key, version } = update;
    const before = this.flags.get(key);
    const changes: FlagChange[] = [];
    if (!(before && before.version >= version)) {
      if (update.deleted) {
        this.#deletedAt.set(key, version);
        const change = this.drop(key);
        if (change) changes.push(change);
      } else {
        this.#deletedAt.delete(key);
        changes.push(this.put(sdkFlag(update, version)));
      }
    }
    return { changes: changes.length ? this.changed(changes, []) : changes, gap };
  }

  /** Applies one `segments:updated` event; its changes are those of the flags that use the segment. */
  applySegment(update: SdkSegmentUpdate, eventId: string | undefined): UpdateOutcome {
    const gap = this.#advance(eventId);
    if (typeof gap !== 'boolean') return gap;
    const { key, version } = update;
    const held = this.segments.get(key);
    if ((held?.version ?? -1) >= version || (this.#segmentDeletedAt.get(key) ?? -1) >= version)
      return { changes: [], gap };
    if ('deleted' in update) {
      this.#segmentDeletedAt.set(key, version);
      if (!held) return { changes: [], gap };
      this.dropSegment(key);
    } else {
      this.#segmentDeletedAt.delete(key);
      this.putSegment(update);
    }
    return { changes: this.changed([], [key]), gap };
  }
}
