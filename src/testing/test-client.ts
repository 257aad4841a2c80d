/**
 * `createTestClient({ flags, segments })`: the client's interface in memory, for users' unit
 * tests. It is the real client in offline mode (the same evaluation, targeting included, the same
 * events), with `set`, `remove`, `setSegment` and `removeSegment` to change things from a test.
 * Synchronous; no network.
 */
import { clientParts } from '../client/create-client.js';
import type { FlagKey, FlagKindOf, FlagwireClient, IfTypedFlags } from '../client/types.js';
import { sdkFlag } from '../core/sdk-flag.js';
import { withPrograms } from '../core/targeting/programs.js';
import type { Segment } from '../core/targeting/types.js';
import type { BooleanFlag, Flag, RolloutFlag, ValueFlag } from '../core/types.js';

/** The flag types that serve each kind of value. */
interface FlagOfKind {
  boolean: BooleanFlag | RolloutFlag;
  string: ValueFlag & { type: 'string' };
  number: ValueFlag & { type: 'number' };
  json: ValueFlag & { type: 'json' };
}

/**
 * A flag a test client takes: any `Flag` while `FlagwireFlags` is empty; once it is augmented, a
 * flag of one of its keys, of a type that serves that key's kind of value.
 */
export type TestFlag = IfTypedFlags<
  { [K in FlagKey]: FlagOfKind[FlagKindOf<K>] & { key: K } }[FlagKey],
  Flag
>;

export interface TestClientOptions {
  /**
   * The flags to start with, in the management representation (`GET /flags`), of any type (once
   * `FlagwireFlags` is augmented, of its keys only).
   */
  flags?: readonly TestFlag[];
  /** The segments their rules name, in the management representation (`GET /segments`). */
  segments?: readonly Segment[];
}

/** A `FlagwireClient` in memory, plus ways to change its flags and segments from a test. */
export interface TestClient extends FlagwireClient {
  /** Creates or replaces a flag; emits `change` (and `change:<key>`) like a live update. */
  set(flag: TestFlag): void;
  /** Removes a flag; emits `change` with `after: undefined`. An unknown key is ignored. */
  remove(key: FlagKey): void;
  /** Creates or replaces a segment; emits `change` for every flag that names it. */
  setSegment(segment: Segment): void;
  /** Removes a segment; emits `change` for every flag that names it. An unknown key is ignored. */
  removeSegment(key: string): void;
}

/**
 * Creates an in-memory client: ready at once, evaluating `flags` and `segments` with the real
 * client's rules (`isEnabled` and the getters never throw), emitting the real events when a
 * test changes something.
 *
 * ```ts
 * const flags = createTestClient({
 *   flags: [{ key: 'new-checkout', type: 'rollout', enabled: true, percentage: 25, description: null }],
 * });
 * flags.isEnabled('new-checkout', 'user-42');
 * flags.set({ key: 'new-checkout', type: 'boolean', enabled: false, description: null });
 * ```
 */
export function createTestClient(options: TestClientOptions = {}): TestClient {
  const [client, store, emitChanges] = clientParts({
    baseUrl: 'http://flagwire.test/api/v1',
    apiKey: 'test',
    offline: true,
    logger: false,
  });
  let version = 0;
  // As the server sends them: each `matches` clause with its compiled program (§12.6).
  const segment = ({ key, included, excluded, rules }: Segment) =>
    withPrograms({ key, included, excluded, rules, version: ++version });
  const flagOf = (flag: Flag) => sdkFlag(withPrograms(flag), ++version);
  for (const s of options.segments ?? []) store.putSegment(segment(s));
  for (const flag of options.flags ?? []) store.put(flagOf(flag));
  store.loaded = true;
  return Object.assign(client, {
    set(flag: Flag): void {
      emitChanges(store.changed([store.put(flagOf(flag))], []));
    },
    remove(key: string): void {
      const change = store.drop(key);
      if (change) emitChanges(store.changed([change], []));
    },
    setSegment(s: Segment): void {
      store.putSegment(segment(s));
      emitChanges(store.changed([], [s.key]));
    },
    removeSegment(key: string): void {
      if (!store.segments.has(key)) return;
      store.dropSegment(key);
      emitChanges(store.changed([], [key]));
    },
  });
}
