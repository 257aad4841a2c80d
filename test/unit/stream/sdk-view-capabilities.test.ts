/**
 * One SDK view per environment answers SDKs with and without the targeting capability
 * (`docs/protocol.md` §5, §12.6) exactly as a separate view per capability does: the same
 * snapshot bodies, tags and headers, the same stream frames and `flags:sync`, the same resume
 * answers under both history bounds (§5.3), across sequences of changes in which flags gain
 * targeting and lose it, change type, are deleted and come back, and segments change.
 *
 * The reference is the behaviour of a view per capability, written as a model: each capability
 * has its own map of flags (kept in the order it received them) and every frame it was sent.
 *
 * Seeded: `PROPERTY_SEED=<n> npx vitest run test/unit/stream/sdk-view-capabilities.test.ts` replays a run.
 */
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FlagCommit } from '../../../server/state/flags/ops.js';
import { isPlainFlag, toDeletedSdkFlag, toSdkFlag } from '../../../server/state/flags/representation.js';
import type { Environment, StoredFlag, StoredSegment } from '../../../server/state/kernel/model.js';
import { StreamHub } from '../../../server/stream/hub.js';
import { SdkView } from '../../../server/stream/sdk-view.js';
import { sdkFlag } from '../../../src/core/sdk-flag.js';
import { withPrograms } from '../../../src/core/targeting/programs.js';
import type { SdkFlag, SdkSegment } from '../../../src/core/types.js';
import { PROPERTY_SEED, params } from '../../helpers/property-seed.js';

const EPOCH = 'ep:och';
const FLAG_KEYS = ['alpha', 'beta', '7', 'constructor', '__proto__'] as const;
const SEGMENT_KEYS = ['staff', 'beta-testers'] as const;

// ------------------------------------------------------------------ stored records

/** Flag shapes: plain ones, and ones an SDK without the capability cannot hold. */
const SHAPES = [
  'boolean',
  'rollout',
  'salted',
  'targets',
  'rules',
  'string',
  'json',
  'prerequisite',
] as const;
type Shape = (typeof SHAPES)[number];

function storedFlag(key: string, shape: Shape, n: number, version: number): StoredFlag {
  const base = { key, enabled: n % 3 !== 0, description: `d${n}`, version, createdAt: '', updatedAt: '' };
  const matches = { attribute: 'email', op: 'matches' as const, values: [`^u${n}@.*\\.com$`] };
  switch (shape) {
    case 'boolean':
      return { ...base, type: 'boolean' };
    case 'rollout':
      return { ...base, type: 'rollout', percentage: n % 101 };
    case 'salted':
      return { ...base, type: 'rollout', percentage: n % 101, salt: `s${n}` };
    case 'targets':
      return { ...base, type: 'boolean', targets: [{ variant: 'on', keys: [`u${n}`] }] };
    case 'rules':
      return {
        ...base,
        type: 'rollout',
        percentage: 50,
        rules: [{ id: `r${n}`, clauses: [matches], serve: { variant: 'on' } }],
      };
    case 'string':
      return {
        ...base,
        type: 'string',
        variants: { a: `A${n}`, b: 'B' },
        offVariant: 'b',
        fallthrough: { variant: 'a' },
      };
    case 'json':
      return { ...base, type: 'json', variants: { x: { n } }, offVariant: 'x' };
    case 'prerequisite':
      return { ...base, type: 'boolean', prerequisites: [{ flag: 'alpha', variants: ['on'] }] };
  }
}

function storedSegment(key: string, n: number, version: number): StoredSegment {
  return {
    key,
    description: null,
    included: Array.from({ length: n % 4 }, (_, i) => `u${n}-${i}`),
    excluded: n % 2 ? ['x'] : [],
    rules: n % 3 ? [{ clauses: [{ attribute: 'email', op: 'matches', values: [`@s${n}\\.`] }] }] : [],
    version,
    createdAt: '',
    updatedAt: '',
  };
}

function environment(revision: number, flags: StoredFlag[], segments: StoredSegment[]): Environment {
  return {
    id: 'p/e',
    project: 'p',
    environment: 'e',
    epoch: EPOCH,
    revision,
    flags: new Map(flags.map((f) => [f.key, f])),
    segments: new Map(segments.map((s) => [s.key, s])),
    webhooks: new Map(),
    deliveries: new Map(),
    generatedKeys: [],
    source: 'config',
    createdAt: '',
    apiKeys: [],
    history: [],
  };
}

// ------------------------------------------------------------------ the reference: a view per capability

const WITHOUT = 0;
const WITH = 1;

class Reference {
  revision: number;
  /** Per capability: its flags, in the order it received them. */
  readonly flags: [Map<string, SdkFlag>, Map<string, SdkFlag>] = [new Map(), new Map()];
  readonly segments = new Map<string, SdkSegment>();
  /** Per capability: the frames of every revision published, oldest first. */
  readonly sent: [string[], string[]] = [[], []];

  constructor(env: Environment) {
    this.revision = env.revision;
    for (const flag of env.flags.values()) {
      this.flags[WITH].set(flag.key, withPrograms(sdkFlag(flag, flag.version)));
      if (isPlainFlag(flag)) this.flags[WITHOUT].set(flag.key, toSdkFlag(flag));
    }
    for (const { key, included, excluded, rules, version } of env.segments.values())
      this.segments.set(key, withPrograms({ key, included, excluded, rules, version }));
  }

  apply({ revision, before, after, segment }: FlagCommit): [string, string] {
    const frame = (event: string, data: unknown) =>
      `id: ${EPOCH}:${revision}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    let frames: [string, string];
    if (segment) {
      const key = (segment.after ?? segment.before)!.key;
      let data: unknown = { key, version: revision, deleted: true };
      if (segment.after) {
        const { included, excluded, rules } = segment.after;
        data = withPrograms({ key, included, excluded, rules, version: revision });
        this.segments.set(key, data as SdkSegment);
      } else this.segments.delete(key);
      const marker = { key: '$segments', type: 'boolean', enabled: false, version: revision, deleted: true };
      frames = [frame('flags:updated', marker), frame('segments:updated', data)];
    } else if (after) {
      const full = withPrograms(sdkFlag(after, revision));
      this.flags[WITH].set(after.key, full);
      const plain = isPlainFlag(after) ? toSdkFlag(after) : undefined;
      if (plain) this.flags[WITHOUT].set(after.key, plain);
      else this.flags[WITHOUT].delete(after.key);
      frames = [
        frame('flags:updated', plain ?? toDeletedSdkFlag(after, revision)),
        frame('flags:updated', full),
      ];
    } else {
      this.flags[WITH].delete(before!.key);
      this.flags[WITHOUT].delete(before!.key);
      frames = [
        frame('flags:updated', toDeletedSdkFlag(before!, revision)),
        frame('flags:updated', toDeletedSdkFlag(before!, revision, true)),
      ];
    }
    this.revision = revision;
    this.sent[WITHOUT].push(frames[WITHOUT]);
    this.sent[WITH].push(frames[WITH]);
    return frames;
  }

  body(c: number): string {
    const eventId = `${EPOCH}:${this.revision}`;
    const body: Record<string, unknown> = {
      revision: this.revision,
      epoch: EPOCH,
      eventId,
      flags: Object.fromEntries(this.flags[c]!),
    };
    if (c === WITH) body.segments = Object.fromEntries(this.segments);
    return JSON.stringify(body);
  }

  etag(c: number): string {
    return c === WITH ? `"${EPOCH}:${this.revision}:targeting"` : `"${EPOCH}:${this.revision}"`;
  }

  /**
   * The frames after `last`, from a history that keeps the longest run of the newest frames
   * with at most `size` of them and `maxChars` characters (the newest always), or `undefined`.
   */
  since(last: number, c: number, size: number, maxChars: number): string[] | undefined {
    if (last === this.revision) return [];
    if (last > this.revision) return undefined;
    const sent = this.sent[c]!;
    let kept = 0;
    let chars = 0;
    while (kept < Math.min(sent.length, size)) {
      const length = sent[sent.length - 1 - kept]!.length;
      if (kept > 0 && chars + length > maxChars) break;
      chars += length;
      kept++;
    }
    if (this.revision - last > kept) return undefined;
    return sent.slice(sent.length - (this.revision - last));
  }
}

// ------------------------------------------------------------------ changes

type Change =
  | { t: 'flag'; key: number; shape: Shape; n: number }
  | { t: 'flag-del'; key: number }
  | { t: 'segment'; key: number; n: number }
  | { t: 'segment-del'; key: number };

const changeArb: fc.Arbitrary<Change> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      t: fc.constant('flag' as const),
      key: fc.nat(FLAG_KEYS.length - 1),
      shape: fc.constantFrom(...SHAPES),
      n: fc.nat(1000),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ t: fc.constant('flag-del' as const), key: fc.nat(FLAG_KEYS.length - 1) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('segment' as const),
      key: fc.nat(SEGMENT_KEYS.length - 1),
      n: fc.nat(1000),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ t: fc.constant('segment-del' as const), key: fc.nat(SEGMENT_KEYS.length - 1) }),
  },
);

/** The commit a change makes to `env` (which it then changes), as the applier builds it; none for a no-op. */
function commit(env: Environment, change: Change): FlagCommit | undefined {
  const revision = env.revision + 1;
  const common = {
    env,
    revision,
    at: '',
    actor: { type: 'adminToken' as const, id: 'admin-token', name: 'admin token' },
  };
  let out: FlagCommit;
  if (change.t === 'flag' || change.t === 'flag-del') {
    const key = FLAG_KEYS[change.key]!;
    const before = env.flags.get(key) ?? null;
    if (change.t === 'flag-del' && !before) return undefined;
    const after = change.t === 'flag' ? storedFlag(key, change.shape, change.n, revision) : null;
    if (after) env.flags.set(key, after);
    else env.flags.delete(key);
    out = { ...common, before, after };
  } else {
    const key = SEGMENT_KEYS[change.key]!;
    const before = env.segments.get(key) ?? null;
    if (change.t === 'segment-del' && !before) return undefined;
    const after = change.t === 'segment' ? storedSegment(key, change.n, revision) : null;
    if (after) env.segments.set(key, after);
    else env.segments.delete(key);
    out = { ...common, before: null, after: null, segment: { before, after } };
  }
  env.revision = revision;
  return out;
}

const startArb = fc.record({
  revision: fc.nat(50),
  flags: fc.uniqueArray(fc.record({ key: fc.nat(FLAG_KEYS.length - 1), shape: fc.constantFrom(...SHAPES) }), {
    selector: (f) => f.key,
    maxLength: FLAG_KEYS.length,
  }),
  segments: fc.uniqueArray(fc.nat(SEGMENT_KEYS.length - 1), { maxLength: SEGMENT_KEYS.length }),
});

interface Start {
  revision: number;
  flags: Array<{ key: number; shape: Shape }>;
  segments: number[];
}

function startOf(start: Start): Environment {
  const { revision } = start;
  return environment(
    revision,
    start.flags.map((f, i) => storedFlag(FLAG_KEYS[f.key]!, f.shape, i, Math.max(0, revision - i))),
    start.segments.map((s, i) => storedSegment(SEGMENT_KEYS[s]!, i, Math.max(0, revision - i))),
  );
}

// ------------------------------------------------------------------ checks

/** Every answer of `view` for both capabilities equals the reference's. */
function expectSameAnswers(view: SdkView, ref: Reference, size: number, maxChars: number): void {
  for (const c of [WITHOUT, WITH]) {
    const targeting = c === WITH;
    const snapshot = view.snapshot(targeting);
    const body = ref.body(c);
    expect(snapshot.body.toString('utf8')).toBe(body);
    expect(snapshot.etag).toBe(ref.etag(c));
    expect(snapshot.okHeaders['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(snapshot.notModifiedHeaders.etag).toBe(ref.etag(c));
    expect(view.snapshot(targeting)).toBe(snapshot); // made once per revision
    expect(view.syncFrame(targeting).toString('utf8')).toBe(
      `id: ${EPOCH}:${ref.revision}\nevent: flags:sync\ndata: ${body}\n\n`,
    );
    for (let last = ref.revision - ref.sent[c]!.length - 1; last <= ref.revision + 1; last++) {
      if (last < 0) continue;
      expect(
        view.framesSince(`${EPOCH}:${last}`, targeting),
        `since ${last}, targeting ${targeting}`,
      ).toEqual(ref.since(last, c, size, maxChars));
    }
    for (const id of [
      undefined,
      '',
      `other:${ref.revision}`,
      `${EPOCH}:1e3`,
      `${EPOCH}:-1`,
      `${ref.revision}`,
    ])
      expect(view.framesSince(id, targeting)).toBeUndefined();
  }
  // A plain flag is sent alike to both: the same bytes in both bodies.
  const without = JSON.parse(ref.body(WITHOUT)).flags as Record<string, SdkFlag>;
  const withIt = JSON.parse(ref.body(WITH)).flags as Record<string, SdkFlag>;
  for (const key of Object.keys(without))
    expect(JSON.stringify(withIt[key])).toBe(JSON.stringify(without[key]));
}

/** A response whose peer reads everything: it records what it was sent. */
class Recorder extends EventEmitter {
  writableLength = 0;
  destroyed = false;
  writableEnded = false;
  text = '';
  writeHead() {
    return this;
  }
  write(frame: string | Buffer) {
    this.text += frame.toString();
    return true;
  }
  end() {
    this.writableEnded = true;
    this.emit('close');
  }
  destroy() {
    this.destroyed = true;
    this.emit('close');
  }
}

const req = {
  method: 'GET',
  resume() {},
  socket: { setKeepAlive() {}, setNoDelay() {}, once() {}, off() {} },
  headers: {},
} as unknown as IncomingMessage;

const hubOf = (historySize: number, historyBytes: number) =>
  new StreamHub({
    pingIntervalMs: 3_600_000,
    historySize,
    historyBytes,
    maxBufferedBytes: 1 << 30,
    maxTotalBufferedBytes: 1 << 30,
    retryMs: 1000,
    maxStreams: 100,
  });

// ------------------------------------------------------------------ tests

describe(`one SDK view per environment answers both capabilities as a view each did (seed ${PROPERTY_SEED})`, () => {
  it('snapshots, tags, sync frames, stream frames and resume agree with the reference after every change', () => {
    fc.assert(
      fc.property(
        startArb,
        fc.array(changeArb, { maxLength: 40 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 100, max: 4000 }),
        (start, changes, size, maxChars) => {
          const env = startOf(start);
          const hub = hubOf(size, maxChars);
          hub.addEnvironment(env);
          const ref = new Reference(env);
          const view = hub.view(env);
          // A stream of each capability open from the start, and later ones resuming.
          const streams: [Recorder, Recorder] = [new Recorder(), new Recorder()];
          const expected: [string, string] = ['', ''];
          for (const c of [WITHOUT, WITH]) {
            hub.subscribe(
              env,
              req,
              streams[c] as unknown as ServerResponse,
              undefined,
              undefined,
              c === WITH,
            );
            expected[c] = `retry: 1000\n${view.syncFrame(c === WITH).toString('utf8')}`;
          }
          expectSameAnswers(view, ref, size, maxChars);
          for (const [i, change] of changes.entries()) {
            const made = commit(env, change);
            if (!made) continue;
            hub.publish(made);
            const frames = ref.apply(made);
            expected[WITHOUT] += frames[WITHOUT];
            expected[WITH] += frames[WITH];
            expect(hub.view(env)).toBe(view);
            expectSameAnswers(view, ref, size, maxChars);
            if (i % 7 === 3) {
              // A stream resuming a few revisions back gets the missed frames, or a sync.
              for (const c of [WITHOUT, WITH]) {
                const last = ref.revision - (i % 4);
                const resumed = new Recorder();
                hub.subscribe(
                  env,
                  req,
                  resumed as unknown as ServerResponse,
                  `${EPOCH}:${last}`,
                  undefined,
                  c === WITH,
                );
                const missed = ref.since(last, c, size, maxChars);
                const sync = `id: ${EPOCH}:${ref.revision}\nevent: flags:sync\ndata: ${ref.body(c)}\n\n`;
                expect(resumed.text).toBe(`retry: 1000\n${missed ? missed.join('') || '\n' : sync}`);
                resumed.destroy();
              }
            }
          }
          expect(streams[WITHOUT]!.text).toBe(expected[WITHOUT]);
          expect(streams[WITH]!.text).toBe(expected[WITH]);
          hub.close();
        },
      ),
      params(150),
    );
  });

  it('keeps each capability its own order of flags: one that lost targeting comes back last without it', () => {
    const env = environment(0, [], []);
    const view = new SdkView(env, 100);
    const ref = new Reference(env);
    const steps: Change[] = [
      { t: 'flag', key: 0, shape: 'boolean', n: 1 }, // alpha, plain
      { t: 'flag', key: 1, shape: 'rollout', n: 2 }, // beta, plain
      { t: 'flag', key: 0, shape: 'rules', n: 3 }, // alpha gains targeting: deleted without the capability
      { t: 'segment', key: 0, n: 4 },
      { t: 'flag', key: 0, shape: 'rollout', n: 5 }, // alpha plain again: last in the plain order
      { t: 'flag', key: 3, shape: 'string', n: 6 },
      { t: 'segment-del', key: 0 },
      { t: 'flag-del', key: 3 },
    ];
    const frames: string[][] = [];
    for (const step of steps) {
      const made = commit(env, step)!;
      const sent = view.apply(made);
      frames.push([sent.plain, sent.targeting]);
      expect([sent.plain, sent.targeting]).toEqual(ref.apply(made));
      expectSameAnswers(view, ref, 100, 1 << 20);
    }
    expect(Object.keys(JSON.parse(view.snapshot(false).body.toString()).flags)).toEqual(['beta', 'alpha']);
    expect(Object.keys(JSON.parse(view.snapshot(true).body.toString()).flags)).toEqual(['alpha', 'beta']);
    // A plain flag's change is the same frame for both; anything else differs.
    expect(frames[0]![0]).toBe(frames[0]![1]);
    expect(frames[4]![0]).toBe(frames[4]![1]);
    expect(frames[2]![0]).toContain('"deleted":true');
    expect(frames[3]![0]).toContain('"key":"$segments"');
    expect(frames[3]![1]).toContain('event: segments:updated');
    expect(frames[7]![0]).toContain('"type":"boolean"');
    expect(frames[7]![1]).toContain('"type":"string"');
  });
});
