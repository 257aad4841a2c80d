/**
 * The SDK's view of one environment: the state as of the last *published* (durable)
 * revision, the recent stream frames, and the cached `GET /sdk/flags` body. Because it
 * only moves when a change is published, a snapshot and the stream always join without
 * a gap or a duplicate (`docs/protocol.md` §5).
 *
 * Two views per environment (§12.6): one for SDKs with the targeting capability (every flag in
 * its full SDK form, the segments, `segments:updated` frames), and one for SDKs without it (plain
 * flags only; anything else reaches them as a deletion). Both take every revision, one frame each.
 */
import { type SdkFlagSource, sdkFlag } from '../../src/core/sdk-flag.js';
import { withPrograms } from '../../src/core/targeting/programs.js';
import type { SdkFlag, SdkSegment, SdkSnapshot } from '../../src/core/types.js';
import { CORS_HEADERS } from '../cors.js';
import type { Environment, FlagCommit, StoredSegment } from '../state/model.js';
import { isPlainFlag, toDeletedSdkFlag, toSdkFlag } from '../state/representation.js';
import { EncodedBodies, MIN_COMPRESSED_BYTES } from './encoded.js';

export interface CachedSnapshot {
  body: Buffer;
  etag: string;
  /** The body compressed, per encoding, made once (`./encoded.ts`); absent for small bodies. */
  encoded: EncodedBodies | undefined;
  /** Response headers of a 200 with `body`, built once per revision (the hot path). */
  okHeaders: Readonly<Record<string, string>>;
  /** Response headers of a 304. */
  notModifiedHeaders: Readonly<Record<string, string>>;
}

/** A segment in the SDK form (§12.6): what evaluation needs, `matches` clauses with their programs. */
const sdkSegment = ({ key, included, excluded, rules }: StoredSegment, version: number): SdkSegment =>
  withPrograms({ key, included, excluded, rules, version });

/** A flag in the full SDK form (§12.6), `matches` clauses with their programs. */
const fullSdkFlag = (flag: SdkFlagSource, version: number): SdkFlag => withPrograms(sdkFlag(flag, version));

export class SdkView {
  readonly epoch: string;
  /** Whether this is the view of SDKs with the targeting capability. */
  readonly targeting: boolean;
  #revision: number;
  readonly #flags = new Map<string, SdkFlag>();
  readonly #segments = new Map<string, SdkSegment>();
  /** Frames of the last `#frames.length` revisions, indexed by revision modulo that length. */
  readonly #frames: string[];
  /** Oldest revision whose frame is kept; nothing is kept before the first publish. */
  #oldest: number;
  /** Characters of the frames kept, and their bound: past it the oldest go, the newest stays. */
  #frameChars = 0;
  readonly #maxFrameChars: number;
  #cached: CachedSnapshot | undefined;
  #syncFrame: { revision: number; bytes: Buffer } | undefined;

  /**
   * `historySize` frames are kept for `Last-Event-ID` resume, and at most `historyBytes` of them
   * (counted in characters): a client further behind gets a full sync (`docs/protocol.md` §5.3).
   */
  constructor(env: Environment, historySize: number, targeting = false, historyBytes = 16 * 1024 * 1024) {
    this.#maxFrameChars = historyBytes;
    this.epoch = env.epoch;
    this.targeting = targeting;
    this.#revision = env.revision;
    this.#oldest = env.revision + 1;
    this.#frames = new Array<string>(Math.max(1, historySize));
    if (targeting) {
      for (const flag of env.flags.values()) this.#flags.set(flag.key, fullSdkFlag(flag, flag.version));
      for (const segment of env.segments.values())
        this.#segments.set(segment.key, sdkSegment(segment, segment.version));
    } else {
      // An SDK without the targeting capability holds only plain flags (§12.6).
      for (const flag of env.flags.values())
        if (isPlainFlag(flag)) this.#flags.set(flag.key, toSdkFlag(flag));
    }
  }

  get revision(): number {
    return this.#revision;
  }

  eventId(revision: number = this.#revision): string {
    return `${this.epoch}:${revision}`;
  }

  /** Applies a published change and returns its stream frame. */
  apply(change: FlagCommit): string {
    const { data, event } = this.targeting ? this.#applyFull(change) : this.#applyPlain(change);
    this.#revision = change.revision;
    this.#cached = undefined;
    const frame = `id: ${this.eventId()}\nevent: ${event}\ndata: ${data}\n\n`;
    const size = this.#frames.length;
    const slot = change.revision % size;
    // The frame this one replaces in the ring, when it was still kept.
    if (change.revision - size >= this.#oldest) this.#frameChars -= this.#frames[slot]!.length;
    this.#frames[slot] = frame;
    this.#frameChars += frame.length;
    if (change.revision - this.#oldest >= size) this.#oldest = change.revision - size + 1;
    while (this.#frameChars > this.#maxFrameChars && this.#oldest < change.revision) {
      const old = this.#oldest % size;
      this.#frameChars -= this.#frames[old]!.length;
      this.#frames[old] = '';
      this.#oldest++;
    }
    return frame;
  }

  /** A change as an SDK with the targeting capability sees it: the flag, or the segment. */
  #applyFull({ before, after, revision, segment }: FlagCommit): { data: string; event: string } {
    if (segment) {
      const key = (segment.after ?? segment.before)!.key;
      if (segment.after) {
        const sent = sdkSegment(segment.after, revision);
        this.#segments.set(key, sent);
        return { event: 'segments:updated', data: JSON.stringify(sent) };
      }
      this.#segments.delete(key);
      return { event: 'segments:updated', data: JSON.stringify({ key, version: revision, deleted: true }) };
    }
    if (after) {
      const flag = fullSdkFlag(after, revision);
      this.#flags.set(flag.key, flag);
      return { event: 'flags:updated', data: JSON.stringify(flag) };
    }
    this.#flags.delete(before!.key);
    return { event: 'flags:updated', data: JSON.stringify(toDeletedSdkFlag(before!, revision, true)) };
  }

  /** A change as an SDK without the capability sees it (§12.6). */
  #applyPlain(change: FlagCommit): { data: string; event: string } {
    if (change.after && isPlainFlag(change.after)) {
      const flag = toSdkFlag(change.after);
      this.#flags.set(flag.key, flag);
      return { event: 'flags:updated', data: JSON.stringify(flag) };
    }
    if (change.after || change.before) {
      // Deleted, or no longer a flag an SDK without targeting can hold: it reaches it deleted.
      const gone = (change.after ?? change.before)!;
      this.#flags.delete(gone.key);
      return { event: 'flags:updated', data: JSON.stringify(toDeletedSdkFlag(gone, change.revision)) };
    }
    // A revision that changed a segment: a deletion of a key no flag can have, so the revision
    // stays gap-free for an SDK that holds no segments.
    const data = JSON.stringify({
      key: '$segments',
      type: 'boolean',
      enabled: false,
      version: change.revision,
      deleted: true,
    });
    return { event: 'flags:updated', data };
  }

  snapshot(): CachedSnapshot {
    if (!this.#cached) {
      const body: SdkSnapshot = {
        revision: this.#revision,
        epoch: this.epoch,
        eventId: this.eventId(),
        flags: Object.fromEntries(this.#flags),
      };
      if (this.targeting) body.segments = Object.fromEntries(this.#segments);
      const bytes = Buffer.from(JSON.stringify(body));
      // The two views' bodies differ at the same revision: so do their tags.
      const etag = this.targeting ? `"${this.eventId()}:targeting"` : `"${this.eventId()}"`;
      const notModifiedHeaders = {
        ...CORS_HEADERS,
        etag,
        'cache-control': 'no-cache',
        vary: 'Authorization, Accept-Encoding, X-Flagwire-Capabilities',
      };
      this.#cached = {
        body: bytes,
        etag,
        encoded:
          bytes.length >= MIN_COMPRESSED_BYTES
            ? new EncodedBodies(bytes, { ...notModifiedHeaders, 'content-type': 'application/json' })
            : undefined,
        notModifiedHeaders,
        okHeaders: {
          ...notModifiedHeaders,
          'content-type': 'application/json',
          'content-length': String(bytes.length),
        },
      };
    }
    return this.#cached;
  }

  /**
   * The first frame of a stream that needs a full sync (after its `retry:` line): `flags:sync`
   * carrying the whole snapshot. Built once per revision and shared by every new stream.
   */
  syncFrame(): Buffer {
    if (this.#syncFrame?.revision !== this.#revision) {
      const text = `id: ${this.eventId()}\nevent: flags:sync\ndata: ${this.snapshot().body.toString('utf8')}\n\n`;
      this.#syncFrame = { revision: this.#revision, bytes: Buffer.from(text) };
    }
    return this.#syncFrame.bytes;
  }

  /**
   * The frames a client that has seen everything up to `lastEventId` is missing, or
   * `undefined` when the history cannot tell (no id, another epoch, too old, or ahead).
   */
  framesSince(lastEventId: string | undefined): string[] | undefined {
    if (!lastEventId) return undefined;
    const colon = lastEventId.lastIndexOf(':');
    if (colon < 0 || lastEventId.slice(0, colon) !== this.epoch) return undefined;
    const digits = lastEventId.slice(colon + 1);
    if (!/^\d{1,15}$/.test(digits)) return undefined;
    const last = Number(digits);
    if (last === this.#revision) return [];
    if (last > this.#revision || last < this.#oldest - 1) return undefined;
    const frames: string[] = [];
    for (let rev = last + 1; rev <= this.#revision; rev++)
      frames.push(this.#frames[rev % this.#frames.length]!);
    return frames;
  }
}
