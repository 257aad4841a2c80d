/**
 * `createClient()`: the Flagwire client. It does no I/O until `ready()` or `start()`;
 * evaluation is synchronous, local and never throws. Listeners run in order; a throwing one is
 * logged and never stops the others.
 *
 * Its parts: the flags (`flag-store.ts`), the loop that keeps them in step with the server and
 * answers `start()`, `ready()`, `status()` and `close()` (`sync-loop.ts`, a state machine over
 * the snapshot load, the stream and polling: `docs/protocol.md` §9), and here evaluation and
 * the listeners.
 */
import { sdkFlag } from '../core/sdk-flag.js';
import type { JsonValue } from '../core/targeting/types.js';
import type { FlagDetail, SdkFlag, SdkSnapshot } from '../core/types.js';
import { kindOfDefault, servedDetail, servedValue, type ValueKind } from './evaluation.js';
import { FlagStore } from './flag-store.js';
import { type ClientOptions, resolveClientOptions } from './options.js';
import { syncLoop } from './sync-loop.js';
import type { FlagChange, FlagwireClient, User } from './types.js';

/**
 * Creates a client. Programmer errors (no `apiKey`, a bad `baseUrl`) throw here, at once.
 *
 * ```ts
 * const client = createClient({ baseUrl: 'http://127.0.0.1:8787/api/v1', apiKey });
 * await client.ready({ timeoutMs: 5000 });
 * client.isEnabled('new-checkout', { key: 'user-42' });
 * ```
 */
export function createClient(options: ClientOptions): FlagwireClient {
  return clientParts(options)[0];
}

/**
 * The client, its flags and the function that emits changes: the in-memory test client
 * (`flagwire/testing`) sets flags directly. Not exported from the barrel.
 */
export function clientParts(
  options: ClientOptions,
): [FlagwireClient, FlagStore, (changes: FlagChange[]) => void] {
  const o = resolveClientOptions(options);
  const { bootstrap } = o;
  const store = new FlagStore();
  const { flags, entries, context } = store;
  /** The value `flagKey` serves `user`; never throws (anything unexpected: the default). */
  const value = <T>(flagKey: string, user: User | undefined, defaultValue: T, kind: ValueKind): T => {
    try {
      return servedValue(entries.get(flagKey), user, defaultValue, kind, context) as T;
    } catch {
      return defaultValue;
    }
  };
  /** `value` with why; never throws. */
  const detail = <T>(
    flagKey: string,
    user: User | undefined,
    defaultValue: T,
    kind: ValueKind,
    named = true,
  ): FlagDetail<T> => {
    try {
      return servedDetail(entries.get(flagKey), user, defaultValue, kind, context, store.loaded, named);
    } catch {
      return { value: defaultValue, reason: 'ERROR' };
    }
  };
  const events = new EventTarget();
  const emit = (event: string, ...args: unknown[]) => {
    events.dispatchEvent(Object.assign(new Event(event), { args }));
  };
  const emitChanges = (changes: FlagChange[]) => {
    for (const change of changes) {
      emit('change', change);
      emit(`change:${change.key}`, change);
    }
  };
  if (Array.isArray(bootstrap)) {
    // Flags in the management representation: no revision, no epoch.
    for (const flag of bootstrap) store.put(sdkFlag(flag, 0));
    store.loaded = true;
  } else if (bootstrap) {
    store.replace(bootstrap as SdkSnapshot);
  }

  const client: FlagwireClient = {
    ...syncLoop(o, store, emit, emitChanges),

    isEnabled: (flagKey, user, defaultValue = false) =>
      value(flagKey, user, defaultValue === true, 'boolean'),
    isEnabledDetail: (flagKey, user, defaultValue = false) =>
      detail(flagKey, user, defaultValue === true, 'boolean', false),
    getString: (flagKey, user, defaultValue) => value(flagKey, user, defaultValue, 'string'),
    getNumber: (flagKey, user, defaultValue) => value(flagKey, user, defaultValue, 'number'),
    getJson: (flagKey, user, defaultValue) => value(flagKey, user, defaultValue, 'json'),
    getDetail: ((flagKey: string, user: User | undefined, defaultValue: JsonValue) =>
      detail(flagKey, user, defaultValue, kindOfDefault(defaultValue))) as FlagwireClient['getDetail'],

    // `fromEntries` defines each key as an own property: a key "__proto__" stays a flag.
    allFlags: () =>
      Object.fromEntries([...flags].map(([key, flag]): [string, SdkFlag] => [key, { ...flag }])),

    on(event, listener, options) {
      // A new function each time: the same listener subscribed twice is two subscriptions.
      const entry = (e: Event) => {
        try {
          (listener as (...a: unknown[]) => void)(...(e as Event & { args: unknown[] }).args);
        } catch (error) {
          o.logger.error(`a "${event}" listener threw: ${(error as Error)?.stack ?? String(error)}`);
        }
      };
      events.addEventListener(event, entry, { signal: options?.signal } as AddEventListenerOptions);
      return () => events.removeEventListener(event, entry);
    },
  };
  return [client, store, emitChanges];
}
