/**
 * Property-based tests of the SDK's update ordering (`FlagStore`) and local evaluation.
 * Seeded: `PROPERTY_SEED=<n> npx vitest run test/unit/sdk/property-client.test.ts` replays a run.
 *
 * The model is the server side: one epoch, a history of creates/updates/deletes of a few
 * keys, revision `r` being the r-th change (1..n), each flag's `version` the revision of its
 * last change, a deletion announced as `{..., deleted: true, version: <its revision>}`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { servedDetail, servedValue } from '../../../src/client/evaluation.js';
import { FlagStore, parseEventId } from '../../../src/client/flag-store.js';
import type { User } from '../../../src/client/types.js';
import { bucketOf, isInRollout } from '../../../src/core/bucketing.js';
import { murmur3Prefix } from '../../../src/core/murmur3.js';
import type { FlagType, SdkFlag, SdkFlagUpdate, SdkSnapshot } from '../../../src/core/types.js';
import { applyOp, type Op, opArb } from '../../helpers/flag-history.js';
import { check } from '../../helpers/property-seed.js';

/** A few keys, among them names an object prototype has. */
const KEYS = ['alpha', 'beta', '__proto__', 'constructor'] as const;
const EPOCH = 'ep1';

type State = [string, SdkFlag][];

const sorted = (flags: Iterable<[string, SdkFlag]>): State =>
  [...flags].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

interface History {
  /** `states[r]`: every flag after revision r, as entries sorted by key (`states[0]` is empty). */
  states: State[];
  /** `events[r]`: the stream event of revision r (`events[0]` unused). */
  events: { update: SdkFlagUpdate; eventId: string }[];
}

const flagOp = opArb(KEYS.length, ['upsert', 'delete']);

/** Runs the ops on the server-side model: every op is one change, so revisions are 1..n. */
function buildHistory(ops: readonly Op[]): History {
  const states: State[] = [[]];
  const events: History['events'] = [
    { update: { key: '', type: 'boolean', enabled: false, version: 0 }, eventId: '' },
  ];
  const current = new Map<string, SdkFlag>();
  ops.forEach((op, i) => {
    const revision = i + 1;
    const update = applyOp(current, KEYS[op.key]!, op, revision);
    states.push(sorted(structuredClone([...current])));
    events.push({ update: Object.freeze({ ...update }), eventId: `${EPOCH}:${revision}` });
  });
  return { states, events };
}

const snapshotAt = (h: History, revision: number): SdkSnapshot => ({
  epoch: EPOCH,
  revision,
  eventId: `${EPOCH}:${revision}`,
  // `Object.fromEntries` makes `__proto__` an own property, as `JSON.parse` does.
  flags: Object.fromEntries(structuredClone(h.states[revision]!)),
});

const contents = (store: FlagStore): State => sorted(store.flags);

/** A history and a snapshot revision in 0..n. */
const historyArb = fc
  .array(flagOp, { minLength: 1, maxLength: 30 })
  .chain((ops) => fc.tuple(fc.constant(ops), fc.integer({ min: 0, max: ops.length })));

describe('FlagStore ordering (model-based)', () => {
  it('in order after a snapshot (with repeats of delivered events): always the model state at store.revision', () => {
    check(
      fc.property(historyArb, fc.array(fc.nat(), { maxLength: 40 }), ([ops, snap], repeatSeeds) => {
        const h = buildHistory(ops);
        const n = ops.length;
        const store = new FlagStore();
        store.replace(snapshotAt(h, snap));
        expect(store.revision).toBe(snap);
        expect(contents(store)).toEqual(h.states[snap]);
        let repeat = 0;
        for (let r = 1; r <= n; r++) {
          // Events up to the snapshot are delivered too (a stream opened before the snapshot).
          const outcome = store.apply(h.events[r]!.update, h.events[r]!.eventId);
          if (r <= snap) expect(outcome).toBe('stale');
          else expect(outcome).toMatchObject({ gap: false });
          // A duplicate of an event already delivered is always stale.
          const s = repeatSeeds[repeat++ % Math.max(1, repeatSeeds.length)];
          if (s !== undefined) {
            const dup = h.events[(s % r) + 1]!;
            expect(store.apply(dup.update, dup.eventId)).toBe('stale');
          }
          expect(store.revision).toBe(Math.max(snap, r));
          expect(contents(store)).toEqual(h.states[store.revision!]);
          expect(store.lastEventId).toBe(`${EPOCH}:${store.revision}`);
        }
      }),
      1000,
    );
  });

  it('any order with duplicates: apply never throws, revision and per-key versions never go back', () => {
    const deliveryArb = historyArb.chain(([ops, snap]) =>
      fc.tuple(
        fc.constant(ops),
        fc.constant(snap),
        fc.shuffledSubarray(
          Array.from({ length: ops.length }, (_, i) => i + 1),
          { minLength: ops.length, maxLength: ops.length },
        ),
        fc.array(fc.tuple(fc.nat({ max: 60 }), fc.integer({ min: 1, max: ops.length })), { maxLength: 30 }),
        fc.array(fc.constantFrom('other:3', 'ep1', '', ':5', 'ep1:-1', 'ep1:x', 'ep1:1.5', undefined), {
          maxLength: 5,
        }),
      ),
    );
    check(
      fc.property(deliveryArb, ([ops, snap, order, repeats, foreignIds]) => {
        const h = buildHistory(ops);
        const sequence = [...order];
        for (const [at, r] of repeats) sequence.splice(at % (sequence.length + 1), 0, r);
        const store = new FlagStore();
        store.replace(snapshotAt(h, snap));
        const highest = new Map<string, number>();
        for (const [key, flag] of store.flags) highest.set(key, flag.version);
        let revision = snap;
        let noGapSoFar = true;
        let step = 0;
        for (const r of sequence) {
          const { update, eventId } = h.events[r]!;
          const outcome = store.apply(update, eventId);
          if (typeof outcome === 'object' && outcome.gap) noGapSoFar = false;
          // Interleave events of another epoch or with malformed ids: ignored entirely.
          const foreign = foreignIds[step++ % Math.max(1, foreignIds.length)];
          if (foreignIds.length > 0) {
            const before = contents(store);
            expect(store.apply(update, foreign)).toBe('foreign');
            expect(contents(store)).toEqual(before);
          }
          expect(store.revision!).toBeGreaterThanOrEqual(revision);
          revision = store.revision!;
          for (const [key, flag] of store.flags) {
            expect(flag.version).toBeGreaterThanOrEqual(highest.get(key) ?? 0);
            highest.set(key, flag.version);
          }
          // Until a gap is reported, the store is exactly the model at its revision.
          if (noGapSoFar) expect(contents(store)).toEqual(h.states[revision]);
        }
      }),
      1000,
    );
  });

  it('all events in order after a snapshot at r: exactly the final state', () => {
    check(
      fc.property(historyArb, ([ops, snap]) => {
        const h = buildHistory(ops);
        const store = new FlagStore();
        store.replace(snapshotAt(h, snap));
        for (let r = snap + 1; r <= ops.length; r++) store.apply(h.events[r]!.update, h.events[r]!.eventId);
        expect(contents(store)).toEqual(h.states[ops.length]);
        expect(store.lastEventId).toBe(`${EPOCH}:${ops.length}`);
        // A snapshot between the last one applied and the stream position is merged under the
        // updates applied after it: with every update there, it changes nothing. One older
        // than the last snapshot applied is ignored; the current one changes nothing.
        const older = ops.length - 1;
        if (older >= snap) expect(store.replace(snapshotAt(h, older))).toEqual([]);
        else expect(store.replace(snapshotAt(h, older))).toBeUndefined();
        if (snap > 0) expect(store.replace(snapshotAt(h, snap - 1))).toBeUndefined();
        expect(contents(store)).toEqual(h.states[ops.length]);
        expect(store.replace(snapshotAt(h, ops.length))).toEqual([]);
        // Every flag held is compiled, ready to evaluate.
        for (const key of store.flags.keys()) expect(store.entries.get(key)?.compiled.key).toBe(key);
      }),
      1000,
    );
  });
});

describe('gaps (model-based)', () => {
  it('updates with some dropped, then any snapshot that covers the drops (even one older than the stream position): exactly the final state, never a version back', () => {
    check(
      fc.property(
        historyArb,
        fc.array(fc.boolean(), { maxLength: 40 }),
        fc.nat(),
        ([ops, snap], drops, pick) => {
          const h = buildHistory(ops);
          const n = ops.length;
          const store = new FlagStore();
          store.replace(snapshotAt(h, snap));
          let lastDropped = snap;
          for (let r = snap + 1; r <= n; r++) {
            if (drops[r % Math.max(1, drops.length)] && r < n) {
              lastDropped = r;
              continue;
            }
            store.apply(h.events[r]!.update, h.events[r]!.eventId);
          }
          expect(store.missing).toBe(lastDropped > snap);
          const versions = new Map([...store.flags].map(([key, flag]) => [key, flag.version]));
          // Any snapshot from the last drop to the head covers every drop.
          const at = lastDropped + (pick % (n - lastDropped + 1));
          const changes = store.replace(snapshotAt(h, at));
          expect(changes).toBeDefined();
          for (const change of changes!) {
            if (change.after) expect(change.after.version).toBeGreaterThan(versions.get(change.key) ?? -1);
          }
          expect(store.missing).toBe(false);
          expect(contents(store)).toEqual(h.states[n]);
          expect(store.revision).toBe(n);
        },
      ),
      1000,
    );
  });
});

describe('event ids', () => {
  // Regression: `parseEventId` once read the revision with `Number(...)`, which accepts '',
  // ' 7', '+7', '1e3' (1000), '0x10' (16): after `ep1:1e3` the store sat at revision 1000 and
  // dropped every real event as stale. It now requires decimal digits, as the server does.
  it('an id whose revision is not decimal digits never moves the store (revision or flags)', () => {
    const suffixArb = fc.oneof(
      fc.constantFrom(
        '',
        ' 7',
        '7 ',
        '+7',
        '1e3',
        '0x10',
        '0b1',
        '0o7',
        '1.0',
        '.5e1',
        '\n3',
        '٣',
        '007',
        '42',
      ),
      fc.string({ maxLength: 6 }),
      fc.nat().map(String),
    );
    check(
      fc.property(suffixArb, (suffix) => {
        const canonical = /^\d+$/.test(suffix) && Number.isSafeInteger(Number(suffix));
        const id = `${EPOCH}:${suffix}`;
        const parsed = parseEventId(id);
        if (canonical) expect(parsed).toEqual({ epoch: EPOCH, revision: Number(suffix) });
        const store = new FlagStore();
        store.replace({ epoch: EPOCH, revision: 2, eventId: `${EPOCH}:2`, flags: {} });
        const outcome = store.apply({ key: 'alpha', type: 'boolean', enabled: true, version: 3 }, id);
        if (!canonical) {
          // ('' parses as revision 0 and comes out 'stale': lenient, but it changes nothing.)
          expect(outcome === 'foreign' || outcome === 'stale').toBe(true);
          expect(store.revision).toBe(2);
          expect(store.flags.size).toBe(0);
        }
      }),
      300,
    );
  });
});

const flagKeyArb = fc.string({ minLength: 1, maxLength: 20, unit: 'binary' });
const percentageArb = fc.oneof(fc.integer({ min: -5, max: 105 }), fc.double(), fc.constant(undefined));
const flagArb: fc.Arbitrary<SdkFlag> = fc
  .record({
    key: flagKeyArb,
    type: fc.constantFrom<FlagType>('boolean', 'rollout'),
    enabled: fc.boolean(),
    percentage: percentageArb,
    version: fc.nat(),
  })
  .map(({ percentage, ...f }) => (percentage === undefined ? f : { ...f, percentage }));
const userArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.anything(),
  fc.string({ unit: 'binary' }),
  fc.record({ key: fc.oneof(fc.string({ unit: 'binary' }), fc.anything()) }),
  fc.record({ key: fc.string({ unit: 'binary' }) }, { requiredKeys: [] }),
);

describe('evaluation', () => {
  it('the evaluator never throws; value and detail agree, and with isInRollout/bucketOf computed from the flag key', () => {
    check(
      fc.property(flagArb, userArb, fc.boolean(), fc.boolean(), (flag, user, defaultValue, loaded) => {
        const u = user as User;
        const store = new FlagStore();
        store.put(flag);
        const entry = store.entries.get(flag.key);
        const value = servedValue(entry, u, defaultValue, 'boolean', store.context);
        const detail = servedDetail(entry, u, defaultValue, 'boolean', store.context, loaded, false);
        expect(value).toBe(detail.value);
        // The independent computation: from the flag key, hashing the whole input.
        const userKey = typeof u === 'string' ? u : (u as { key?: unknown } | undefined)?.key;
        const expected =
          flag.enabled &&
          (flag.type !== 'rollout' || isInRollout(flag.key, userKey as string, flag.percentage ?? 0));
        expect(value).toBe(expected);
        if (detail.bucket !== undefined) {
          expect(detail.bucket).toBe(bucketOf(flag.key, userKey as string));
        }
        // A missing flag gives the default.
        expect(servedValue(undefined, u, defaultValue, 'boolean', store.context)).toBe(defaultValue);
        expect(servedDetail(undefined, u, defaultValue, 'boolean', store.context, loaded, false).value).toBe(
          defaultValue,
        );
      }),
      1000,
    );
  });

  it('isInRollout is monotonic in the percentage and matches bucketOf, with and without a prefix', () => {
    check(
      fc.property(
        flagKeyArb,
        fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom(undefined, null, '')),
        fc.oneof(fc.integer({ min: -5, max: 105 }), fc.double({ noNaN: true })),
        fc.oneof(fc.integer({ min: -5, max: 105 }), fc.double({ noNaN: true })),
        (flagKey, userKey, p, q) => {
          const [low, high] = p <= q ? [p, q] : [q, p];
          const prefix = murmur3Prefix(`${flagKey}:`);
          for (const pre of [undefined, prefix]) {
            if (isInRollout(flagKey, userKey, low, pre))
              expect(isInRollout(flagKey, userKey, high, pre)).toBe(true);
            expect(isInRollout(flagKey, userKey, low, pre)).toBe(isInRollout(flagKey, userKey, low));
          }
          if (typeof userKey === 'string' && userKey !== '' && low > 0 && low < 100) {
            expect(isInRollout(flagKey, userKey, low)).toBe(bucketOf(flagKey, userKey) <= low);
          }
        },
      ),
      1000,
    );
  });
});
