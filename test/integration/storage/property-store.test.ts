/**
 * Property tests of the durable file store (`server/store/file-storage.ts`).
 *
 * A random sequence of entries (environments first, then flag puts/deletes with increasing
 * revisions, webhook puts/deletes, delivery puts/deletes; 1..3 ops per entry) is appended
 * through a FileStorage with a small `compactAfterEntries`/`compactAfterBytes`, so
 * compaction happens mid-sequence. Some entries are appended without waiting, so group
 * commit batches several. Whatever the storage then holds, replaying it (`fromSnapshot` +
 * `applyOp`) must give exactly the model: a plain Database built by `applyOp` on the same ops.
 *
 * - clean: `close()`, then a new storage on the same directory.
 * - crash: the storage is abandoned (lock file left behind) at acknowledged points; its
 *   files are copied to a fresh directory (journal first, then snapshot: the order in which
 *   compaction changes them, so the copy is a state a real crash could leave), a torn tail
 *   (a partial line or garbage without a newline) is added, and the copy is loaded. After
 *   recovery, one more entry is appended and the directory reloaded, so the torn bytes must
 *   really have been cut off.
 *
 * Reproduce a failure: PROPERTY_SEED=<seed printed by fast-check> npx vitest run test/integration/storage/property-store.test.ts
 */
import { appendFile, copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  Applier,
  applyOp,
  fromSnapshot,
  type Op,
  restoreState,
  type SnapshotData,
  toSnapshot,
} from '../../../server/state/domains.js';
import {
  MemoryState,
  type StoredDelivery,
  type StoredFlag,
  type StoredWebhook,
} from '../../../server/state/kernel/model.js';
import { createFileStorage } from '../../../server/store/file-storage.js';
import type { Storage } from '../../../server/store/storage.js';
import { PROPERTY_SEED, params } from '../../helpers/property-seed.js';

// ---------------------------------------------------------------- generators

const ENVS = ['acme/production', 'acme/staging', 'other/production'] as const;
const FLAG_KEYS = ['a', 'b', 'checkout.v2', 'new_ui', 'x-1'] as const;
const HOOK_IDS = ['wh_1', 'wh_2', 'wh_3'] as const;
const DELIVERY_IDS = ['dlv_1', 'dlv_2', 'dlv_3', 'dlv_4'] as const;

/** Text with every kind of code unit: newlines, quotes, control characters, lone surrogates. */
const text = fc.string({ unit: 'binary', maxLength: 30 });
const iso = fc.integer({ min: 0, max: 4_102_444_800_000 }).map((ms) => new Date(ms).toISOString());
/** JSON values as they come back from JSON (no -0, no undefined). */
const json = fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);

const flagBody = fc.record({
  key: fc.constantFrom(...FLAG_KEYS),
  type: fc.constantFrom('boolean' as const, 'rollout' as const),
  enabled: fc.boolean(),
  percentage: fc.integer({ min: 0, max: 100 }),
  description: fc.option(text, { nil: null }),
  createdAt: iso,
  updatedAt: iso,
});

const webhook: fc.Arbitrary<StoredWebhook> = fc
  .record({
    id: fc.constantFrom(...HOOK_IDS),
    url: fc.constantFrom('https://example.com/hook', 'http://127.0.0.1:9/x?y=z'),
    events: fc.subarray(['flag.enabled', 'flag.disabled', 'flag.updated'] as const, { minLength: 1 }),
    secret: text,
    previous: fc.option(fc.tuple(text, fc.nat()), { nil: undefined }),
    active: fc.boolean(),
    createdAt: iso,
  })
  .map(({ previous, ...w }) =>
    previous ? { ...w, previousSecret: previous[0], previousSecretExpiresAt: previous[1] } : w,
  );

const delivery: fc.Arbitrary<StoredDelivery> = fc
  .record({
    id: fc.constantFrom(...DELIVERY_IDS),
    webhookId: fc.constantFrom(...HOOK_IDS),
    eventId: text.map((s) => `evt_${s}`),
    type: fc.constantFrom('flag.enabled', 'flag.disabled', 'flag.updated', 'webhook.test' as const),
    createdAt: iso,
    action: fc.constantFrom('created', 'updated', 'deleted', 'test' as const),
    flag: flagBody,
    previous: fc.option(fc.dictionary(text, json, { maxKeys: 3 }), { nil: undefined }),
    status: fc.constantFrom('pending', 'succeeded', 'failed' as const),
    attempts: fc.nat({ max: 20 }),
    lastStatusCode: fc.option(fc.integer({ min: 100, max: 599 }), { nil: undefined }),
    lastError: fc.option(text, { nil: undefined }),
    nextAttemptAt: fc.option(fc.nat(), { nil: undefined }),
    updatedAt: iso,
  })
  .map((d) => {
    const out: StoredDelivery = {
      id: d.id,
      webhookId: d.webhookId,
      eventId: d.eventId,
      type: d.type,
      createdAt: d.createdAt,
      data: {
        action: d.action,
        flag: {
          key: d.flag.key,
          type: d.flag.type,
          enabled: d.flag.enabled,
          ...(d.flag.type === 'rollout' ? { percentage: d.flag.percentage } : {}),
          description: d.flag.description,
        },
        ...(d.previous ? { previous: d.previous } : {}),
      },
      status: d.status,
      attempts: d.attempts,
      updatedAt: d.updatedAt,
    };
    if (d.lastStatusCode !== undefined) out.lastStatusCode = d.lastStatusCode;
    if (d.lastError !== undefined) out.lastError = d.lastError;
    if (d.nextAttemptAt !== undefined) out.nextAttemptAt = d.nextAttemptAt;
    return out;
  });

type FlagBody = typeof flagBody extends fc.Arbitrary<infer T> ? T : never;

/** An op before revisions are assigned (`rev` is filled in by `withRevisions`). */
type Draft =
  | { t: 'flag'; env: number; flag: FlagBody; jump: number }
  | { t: 'flag-del'; env: number; key: string; jump: number }
  | { t: 'webhook'; env: number; webhook: StoredWebhook }
  | { t: 'webhook-del'; env: number; id: string }
  | { t: 'delivery'; env: number; delivery: StoredDelivery }
  | { t: 'delivery-del'; env: number; id: string }
  | { t: 'rekey'; env: number; keys: Array<{ key: string; access: 'full' | 'read-only' }> };

const envIndex = fc.nat({ max: ENVS.length - 1 });
const jump = fc.oneof(
  { weight: 5, arbitrary: fc.constant(1) },
  { weight: 1, arbitrary: fc.integer({ min: 2, max: 50 }) },
);
const grants = fc.array(
  fc.record({ key: text.map((s) => `fw_live_${s}`), access: fc.constantFrom('full', 'read-only' as const) }),
  { maxLength: 2 },
);

const draft: fc.Arbitrary<Draft> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({ t: fc.constant('flag' as const), env: envIndex, flag: flagBody, jump }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant('flag-del' as const),
      env: envIndex,
      key: fc.constantFrom(...FLAG_KEYS),
      jump,
    }),
  },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('webhook' as const), env: envIndex, webhook }) },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant('webhook-del' as const),
      env: envIndex,
      id: fc.constantFrom(...HOOK_IDS),
    }),
  },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('delivery' as const), env: envIndex, delivery }) },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant('delivery-del' as const),
      env: envIndex,
      id: fc.constantFrom(...DELIVERY_IDS),
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('rekey' as const), env: envIndex, keys: grants }) },
);

/** How one entry is appended: awaited or left in flight (group commit), and whether to crash-copy after it. */
interface Step {
  drafts: Draft[];
  awaited: boolean;
  checkpoint: boolean;
}

const step: fc.Arbitrary<Step> = fc.record({
  drafts: fc.array(draft, { minLength: 1, maxLength: 3 }),
  awaited: fc.boolean(),
  checkpoint: fc
    .boolean()
    .chain((b) => (b ? fc.boolean() : fc.constant(false)))
    .chain((b) => (b ? fc.boolean() : fc.constant(false))),
});

interface Scenario {
  /** The environments, with their epochs and keys: the first entry. */
  envs: Op[];
  steps: Step[];
  compactAfterEntries: number;
  compactAfterBytes: number;
}

const scenario: fc.Arbitrary<Scenario> = fc.record({
  envs: fc.tuple(text, text, text, grants, grants, grants).map(([e1, e2, e3, k1, k2, k3]) =>
    ENVS.map(
      (id, i): Op => ({
        t: 'env',
        id,
        project: id.split('/')[0]!,
        environment: id.split('/')[1]!,
        epoch: [e1, e2, e3][i]!,
        keys: [k1, k2, k3][i]!,
      }),
    ),
  ),
  steps: fc.array(step, { minLength: 0, maxLength: 40 }),
  compactAfterEntries: fc.integer({ min: 2, max: 20 }),
  compactAfterBytes: fc.oneof(fc.integer({ min: 200, max: 8000 }), fc.constant(64 * 1024 * 1024)),
});

/** Turns drafts into ops: revisions increase per environment (by 1, sometimes by more). */
function withRevisions(steps: Step[]): Op[][] {
  const rev = ENVS.map(() => 0);
  return steps.map((s) =>
    s.drafts.map((d): Op => {
      const env = ENVS[d.env]!;
      switch (d.t) {
        case 'flag': {
          rev[d.env]! += d.jump;
          const r = rev[d.env]!;
          const { percentage, ...rest } = d.flag;
          const flag: StoredFlag = {
            ...rest,
            version: r,
            ...(d.flag.type === 'rollout' ? { percentage } : {}),
          };
          return { t: 'flag', env, rev: r, flag };
        }
        case 'flag-del':
          rev[d.env]! += d.jump;
          return { t: 'flag-del', env, rev: rev[d.env]!, key: d.key };
        case 'webhook':
          return { t: 'webhook', env, webhook: d.webhook };
        case 'webhook-del':
          return { t: 'webhook-del', env, id: d.id };
        case 'delivery':
          return { t: 'delivery', env, delivery: d.delivery };
        case 'delivery-del':
          return { t: 'delivery-del', env, id: d.id };
        // 'rekey': new keys for an existing environment (the other fields are ignored then).
        default:
          return { t: 'env', id: env, project: '', environment: '', epoch: '', keys: d.keys };
      }
    }),
  );
}

// ---------------------------------------------------------------- helpers

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'flagwire-prop-store-'));
  dirs.push(dir);
  return dir;
}

async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  const i = dirs.indexOf(dir);
  if (i >= 0) dirs.splice(i, 1);
}

interface Opened {
  storage: Storage<Op>;
  db: MemoryState;
  warnings: string[];
}

/** Opens a storage on `dir` and replays what it holds, like the server does at start. */
async function open(
  dir: string,
  s: Pick<Scenario, 'compactAfterEntries' | 'compactAfterBytes'>,
): Promise<Opened> {
  const warnings: string[] = [];
  const storage = createFileStorage<Op>({
    dir,
    compactAfterEntries: s.compactAfterEntries,
    compactAfterBytes: s.compactAfterBytes,
    warn: (m) => warnings.push(m),
  });
  const db = restoreState(await storage.load(), 10_000);
  storage.attach(
    new Applier(db, (error) => {
      throw error;
    }),
  );
  return { storage, db, warnings };
}

const byString =
  <T>(f: (x: T) => string) =>
  (a: T, b: T) =>
    f(a) < f(b) ? -1 : f(a) > f(b) ? 1 : 0;

/** `toSnapshot`, with every array sorted so order does not matter, as plain JSON values. */
function normalized(db: MemoryState): SnapshotData {
  const snap = JSON.parse(JSON.stringify(toSnapshot(db))) as SnapshotData;
  snap.envs.sort(byString((e) => e.id));
  for (const e of snap.envs) {
    e.flags.sort(byString((f) => f.key));
    e.webhooks.sort(byString((w) => w.id));
    (e.deliveries ?? []).sort(byString((d) => d.id));
  }
  return snap;
}

/** Commits `ops` as one entry through the live storage, which applies them to its memory. */
function append(o: Opened, ops: Op[]): Promise<void> {
  return o.storage.commit('', () => ops);
}

/**
 * What a crash at this instant would leave: the journal and snapshot copied to a fresh
 * directory (journal first: compaction renames the snapshot before it truncates the journal,
 * so any pair read in this order is a state the disk really passes through).
 */
async function crashCopy(from: string): Promise<string> {
  const to = await tempDir();
  for (const name of ['journal.jsonl', 'snapshot.json']) {
    await copyFile(join(from, name), join(to, name)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }
  return to;
}

/** A torn tail: bytes of an unacknowledged write, never ending in a newline. */
const tornTail = fc.oneof(
  // A prefix of a real next entry.
  fc.tuple(draft, fc.nat({ max: 10_000 }), fc.nat()).map(([d, seq, cut]) => {
    const [ops] = withRevisions([{ drafts: [d], awaited: true, checkpoint: false }]);
    const line = `${JSON.stringify({ s: seq + 1, o: ops })}\n`;
    return Buffer.from(line, 'utf8').subarray(0, 1 + (cut % (Buffer.byteLength(line) - 1)));
  }),
  // Garbage (also invalid UTF-8) without a newline.
  fc.uint8Array({ minLength: 1, maxLength: 64 }).map((b) => Buffer.from(b.filter((x) => x !== 10))),
  // A complete-looking entry whose newline never made it.
  fc.constant(Buffer.from('{"s":1000000,"o":[]}', 'utf8')),
);

const EXTRA: Op[] = [
  {
    t: 'webhook',
    env: ENVS[0],
    webhook: {
      id: 'wh_after',
      url: 'https://example.com/after',
      events: ['flag.updated'],
      secret: 'whsec_after',
      active: true,
      createdAt: '2026-01-01T00:00:00.000Z',
    },
  },
];

/** Loads a crash copy (with a torn tail), checks it against `expected`, then appends one more entry and reloads. */
async function checkCrashCopy(
  from: string,
  s: Scenario,
  expected: SnapshotData,
  tail: Buffer,
): Promise<void> {
  const dir = await crashCopy(from);
  if (tail.length > 0) await appendFile(join(dir, 'journal.jsonl'), tail);
  const recovered = await open(dir, s);
  expect(normalized(recovered.db)).toEqual(expected);
  if (tail.length > 0) expect(recovered.warnings.join('\n')).toMatch(/dropped/);
  // The torn bytes must be gone: an entry appended now must survive the next load.
  const model = fromSnapshot(expected);
  for (const op of EXTRA) applyOp(model, op);
  await append(recovered, EXTRA);
  await recovered.storage.close();
  const again = await open(dir, s);
  expect(normalized(again.db)).toEqual(normalized(model));
  expect(again.warnings).toEqual([]);
  await again.storage.close();
  await removeDir(dir);
}

/** Runs the scenario against a live storage on `dir`; at checkpoints (crash mode) checks crash copies. */
async function drive(
  dir: string,
  s: Scenario,
  entries: Op[][],
  tails: Buffer[] | undefined,
): Promise<{ live: Opened; model: MemoryState }> {
  const live = await open(dir, s);
  const model: MemoryState = new MemoryState();
  const inFlight: Promise<void>[] = [];
  const all = [s.envs, ...entries];
  const steps: Step[] = [{ drafts: [], awaited: true, checkpoint: false }, ...s.steps];
  let checkpoints = 0;
  for (let i = 0; i < all.length; i++) {
    const ops = all[i]!;
    for (const op of ops) applyOp(model, op);
    const p = append(live, ops);
    inFlight.push(p);
    if (steps[i]!.awaited) await p;
    if (tails && steps[i]!.checkpoint) {
      await Promise.all(inFlight.splice(0));
      await checkCrashCopy(dir, s, normalized(model), tails[checkpoints++ % tails.length]!);
    }
  }
  await Promise.all(inFlight);
  return { live, model };
}

// ---------------------------------------------------------------- properties

describe(`file store, replay equals the model (seed ${PROPERTY_SEED})`, () => {
  it('after close(), a new storage on the same directory replays exactly the model', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const dir = await tempDir();
        try {
          const { live, model } = await drive(dir, s, withRevisions(s.steps), undefined);
          await live.storage.close();
          await live.storage.close(); // idempotent
          const reopened = await open(dir, s);
          expect(reopened.warnings).toEqual([]);
          expect(normalized(reopened.db)).toEqual(normalized(model));
          // And the reopened store keeps working: one more entry, close, reload.
          for (const op of EXTRA) applyOp(model, op);
          await append(reopened, EXTRA);
          await reopened.storage.close();
          const again = await open(dir, s);
          expect(normalized(again.db)).toEqual(normalized(model));
          await again.storage.close();
        } finally {
          await removeDir(dir);
        }
      }),
      params(100),
    );
  });

  it('after a crash (storage abandoned, torn tail added), every acknowledged entry is replayed', async () => {
    await fc.assert(
      fc.asyncProperty(
        scenario,
        fc.array(tornTail, { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        async (s, tails, withTail) => {
          const dir = await tempDir();
          const used = withTail ? tails : [Buffer.alloc(0)];
          // The abandoned storage keeps its lock (in this process): nothing reopens `dir`, only copies.
          const { live, model } = await drive(dir, s, withRevisions(s.steps), used);
          // Let a compaction that the last batch started finish, so the copy is a settled state
          // (mid-compaction states are covered by the checkpoints above).
          await live.storage.readSettled(null, () => {});
          await checkCrashCopy(dir, s, normalized(model), used[0]!);
          // Also: the journal on disk never holds a partial line once everything is acknowledged.
          const journal = await readFile(join(dir, 'journal.jsonl'));
          expect(journal.length === 0 || journal[journal.length - 1] === 10).toBe(true);
          // Only now release the abandoned storage's file handle and lock, to not leak them.
          await live.storage.close();
          await removeDir(dir);
        },
      ),
      params(100),
    );
  });
});
