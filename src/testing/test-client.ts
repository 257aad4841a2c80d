/**
 * `createTestClient({ flags })`: the client's interface in memory, for users' unit tests.
 * It is the real client in offline mode (the same evaluation, the same events), with
 * `set` and `remove` to change flags from a test. Synchronous; no network.
 */
import { clientParts } from '../client/create-client.js';
import type { FlagwireClient } from '../client/types.js';
import { sdkFlag } from '../core/sdk-flag.js';
import type { BooleanFlag, Flag, RolloutFlag } from '../core/types.js';

/** Whether the client evaluates `flag` today: `string`, `number` and `json` flags give the default. */
const evaluated = (flag: Flag): flag is BooleanFlag | RolloutFlag =>
  flag.type === 'boolean' || flag.type === 'rollout';

export interface TestClientOptions {
  /** The flags to start with, in the management representation (`GET /flags`). */
  flags?: readonly Flag[];
}

/** A `FlagwireClient` in memory, plus ways to change its flags from a test. */
export interface TestClient extends FlagwireClient {
  /** Creates or replaces a flag; emits `change` (and `change:<key>`) like a live update. */
  set(flag: Flag): void;
  /** Removes a flag; emits `change` with `after: undefined`. An unknown key is ignored. */
  remove(key: string): void;
}

/**
 * Creates an in-memory client: ready at once, evaluating `flags` with the real client's rules
 * (`isEnabled` never throws), emitting the real events when a test calls `set` or `remove`.
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
  for (const flag of options.flags ?? []) if (evaluated(flag)) store.put(sdkFlag(flag, ++version));
  return Object.assign(client, {
    set(flag: Flag): void {
      if (evaluated(flag)) emitChanges([store.put(sdkFlag(flag, ++version))]);
    },
    remove(key: string): void {
      const change = store.drop(key);
      if (change) emitChanges([change]);
    },
  });
}
