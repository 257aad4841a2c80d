/**
 * The SDK's view of one environment: the state as of the last *published* (durable) revision,
 * and what it writes for SDKs from it: the recent stream frames and the cached `GET /sdk/flags`
 * body. Because it only moves when a change is published, a snapshot and the stream always join
 * without a gap or a duplicate (`docs/protocol.md` §5).
 *
 * One view per environment, written for each capability (§12.6). It holds the state once: every
 * flag in its full SDK form, the segments, and which flags are plain. SDKs with the targeting
 * capability get all of it and `segments:updated` frames; SDKs without it get the plain flags
 * only (a plain flag's full form is its plain form, byte for byte), and anything else reaches
 * them as a deletion. Each capability has its own frame history, one frame per revision (a frame
 * both send alike is one string), and its own snapshot and `flags:sync` frame, made at the first
 * request of a revision.
 */
import { type SdkFlagSource, sdkFlag } from '../../src/core/sdk-flag.js';
import { withPrograms } from '../../src/core/targeting/programs.js';
import type { SdkFlag, SdkSegment, SdkSnapshot } from '../../src/core/types.js';
import { CORS_HEADERS } from '../cors.js';
import type { FlagCommit } from '../state/flags/ops.js';
import { isPlainFlag, toDeletedSdkFlag } from '../state/flags/representation.js';
import type { Environment, StoredSegment } from '../state/kernel/model.js';
import { EncodedBodies, MIN_COMPRESSED_BYTES } from './encoded.js';
import { FrameRing } from './frame-ring.js';

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

/** The frames of one published revision, for SDKs without and with the targeting capability. */
export interface RevisionFrames {
  plain: string;
  targeting: string;
}

/** What the view writes for one capability: its frame history, and its caches of this revision. */
interface Written {
  readonly frames: FrameRing;
  snapshot: CachedSnapshot | undefined;
  /** The `flags:sync` frame, whose bytes hold the snapshot's `body` (one buffer for both). */
  sync: Buffer | undefined;
}

/** A segment in the SDK form (§12.6): what evaluation needs, `matches` clauses with their programs. */
const sdkSegment = ({ key, included, excluded, rules }: StoredSegment, version: number): SdkSegment =>
  withPrograms({ key, included, excluded, rules, version });

/** A flag in the full SDK form (§12.6), `matches` clauses with their programs. */
const fullSdkFlag = (flag: SdkFlagSource, version: number): SdkFlag => withPrograms(sdkFlag(flag, version));

const frameOf = (id: string, event: string, data: string): string =>
  `id: ${id}\nevent: ${event}\ndata: ${data}\n\n`;

export class SdkView {
  readonly epoch: string;
  #revision: number;
  /** Every flag in its full SDK form, in the order SDKs with the capability got them. */
  readonly #flags = new Map<string, SdkFlag>();
  /**
   * The keys of the plain flags (`isPlainFlag`), in the order SDKs without the capability got
   * them (a flag that gains targeting leaves it, and comes back last), which their snapshot keeps.
   */
  readonly #plainKeys = new Set<string>();
  readonly #segments = new Map<string, SdkSegment>();
  /** Without the capability, then with it. */
  readonly #written: readonly [Written, Written];

  /**
   * `historySize` frames are kept per capability for `Last-Event-ID` resume, and at most
   * `historyBytes` of them (counted in characters): a client further behind gets a full sync
   * (`docs/protocol.md` §5.3).
   */
  constructor(env: Environment, historySize: number, historyBytes = 16 * 1024 * 1024) {
    this.epoch = env.epoch;
    this.#revision = env.revision;
    const written = (): Written => ({
      frames: new FrameRing(historySize, historyBytes, env.revision),
      snapshot: undefined,
      sync: undefined,
    });
    this.#written = [written(), written()];
    for (const flag of env.flags.values()) {
      this.#flags.set(flag.key, fullSdkFlag(flag, flag.version));
      if (isPlainFlag(flag)) this.#plainKeys.add(flag.key);
    }
    for (const segment of env.segments.values())
      this.#segments.set(segment.key, sdkSegment(segment, segment.version));
  }

  get revision(): number {
    return this.#revision;
  }

  eventId(revision: number = this.#revision): string {
    return `${this.epoch}:${revision}`;
  }

  /** Applies a published change and returns its stream frame for each capability. */
  apply(change: FlagCommit): RevisionFrames {
    const frames = this.#change(change);
    this.#revision = change.revision;
    const [without, withIt] = this.#written;
    without.frames.push(change.revision, frames.plain);
    withIt.frames.push(change.revision, frames.targeting);
    without.snapshot = without.sync = withIt.snapshot = withIt.sync = undefined;
    return frames;
  }

  #change({ before, after, revision, segment }: FlagCommit): RevisionFrames {
    const id = this.eventId(revision);
    if (segment) {
      // A segment is sent to SDKs with the capability; to the others, a deletion of a key no flag
      // can have, so the revision stays gap-free for an SDK that holds no segments.
      const key = (segment.after ?? segment.before)!.key;
      let data: string;
      if (segment.after) {
        const sent = sdkSegment(segment.after, revision);
        this.#segments.set(key, sent);
        data = JSON.stringify(sent);
      } else {
        this.#segments.delete(key);
        data = JSON.stringify({ key, version: revision, deleted: true });
      }
      const marker = { key: '$segments', type: 'boolean', enabled: false, version: revision, deleted: true };
      return {
        targeting: frameOf(id, 'segments:updated', data),
        plain: frameOf(id, 'flags:updated', JSON.stringify(marker)),
      };
    }
    if (after) {
      const flag = fullSdkFlag(after, revision);
      this.#flags.set(flag.key, flag);
      const targeting = frameOf(id, 'flags:updated', JSON.stringify(flag));
      // A plain flag's full form is its plain form (its version is the revision of its op), so
      // both send one frame. A flag no longer plain reaches SDKs without the capability deleted.
      if (isPlainFlag(after)) {
        this.#plainKeys.add(flag.key);
        return { targeting, plain: targeting };
      }
      this.#plainKeys.delete(flag.key);
      return {
        targeting,
        plain: frameOf(id, 'flags:updated', JSON.stringify(toDeletedSdkFlag(after, revision))),
      };
    }
    const gone = before!;
    this.#flags.delete(gone.key);
    this.#plainKeys.delete(gone.key);
    const data = JSON.stringify(toDeletedSdkFlag(gone, revision, true));
    const targeting = frameOf(id, 'flags:updated', data);
    // Without the capability a deletion is of a `boolean` or `rollout` flag: the same frame for those.
    const plainData = JSON.stringify(toDeletedSdkFlag(gone, revision));
    return { targeting, plain: plainData === data ? targeting : frameOf(id, 'flags:updated', plainData) };
  }

  /** The `GET /sdk/flags` answer of this revision for SDKs with (`targeting`) or without the capability. */
  snapshot(targeting: boolean): CachedSnapshot {
    const written = this.#written[targeting ? 1 : 0];
    if (!written.snapshot) this.#write(written, targeting);
    return written.snapshot!;
  }

  /**
   * The first frame of a stream that needs a full sync (after its `retry:` line): `flags:sync`
   * carrying the whole snapshot of its capability. Built once per revision and shared by every
   * new stream.
   */
  syncFrame(targeting: boolean): Buffer {
    const written = this.#written[targeting ? 1 : 0];
    if (!written.sync) this.#write(written, targeting);
    return written.sync!;
  }

  /** Makes the capability's snapshot of this revision and its `flags:sync` frame, from one buffer. */
  #write(written: Written, targeting: boolean): void {
    const body: SdkSnapshot = {
      revision: this.#revision,
      epoch: this.epoch,
      eventId: this.eventId(),
      flags: Object.fromEntries(targeting ? this.#flags : this.#plainFlags()),
    };
    if (targeting) body.segments = Object.fromEntries(this.#segments);
    const head = `id: ${this.eventId()}\nevent: flags:sync\ndata: `;
    written.sync = Buffer.from(`${head}${JSON.stringify(body)}\n\n`);
    const bytes = written.sync.subarray(Buffer.byteLength(head), written.sync.length - 2);
    // The two bodies differ at the same revision: so do their tags.
    const etag = targeting ? `"${this.eventId()}:targeting"` : `"${this.eventId()}"`;
    const notModifiedHeaders = {
      ...CORS_HEADERS,
      etag,
      'cache-control': 'no-cache',
      vary: 'Authorization, Accept-Encoding, X-Flagwire-Capabilities',
    };
    written.snapshot = {
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

  *#plainFlags(): Generator<[string, SdkFlag]> {
    for (const key of this.#plainKeys) yield [key, this.#flags.get(key)!];
  }

  /**
   * The frames a client of the capability that has seen everything up to `lastEventId` is
   * missing, or `undefined` when the history cannot tell (no id, another epoch, too old, or ahead).
   */
  framesSince(lastEventId: string | undefined, targeting: boolean): string[] | undefined {
    if (!lastEventId) return undefined;
    const colon = lastEventId.lastIndexOf(':');
    if (colon < 0 || lastEventId.slice(0, colon) !== this.epoch) return undefined;
    const digits = lastEventId.slice(colon + 1);
    if (!/^\d{1,15}$/.test(digits)) return undefined;
    return this.#written[targeting ? 1 : 0].frames.since(Number(digits));
  }
}
