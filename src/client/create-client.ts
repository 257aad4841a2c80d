/**
 * `createClient()`: the Flagwire client. It does no I/O until `ready()` or `start()`;
 * evaluation is synchronous, local and never throws. Listeners run in order; a throwing one is
 * logged and never stops the others.
 *
 * Its parts: the flags (`flag-store.ts`), the loop that keeps them in step with the server and
 * answers `start()`, `ready()`, `status()` and `close()` (`sync-loop.ts`, a state machine over
 * the snapshot load, the stream and polling: `docs/protocol.md` §9), the usage reporter
 * (`usage-reporter.ts`, §13.6: counts kept beside each flag, `flush()`, flushed by `close()`),
 * and here evaluation and the listeners.
 */
import { sdkFlag } from '../core/sdk-flag.js';
import type { JsonValue } from '../core/targeting/types.js';
import { later } from '../core/timers.js';
import type { FlagDetail, SdkFlag, SdkSnapshot } from '../core/types.js';
import { kindOfDefault, servedDetail, servedValue, type ValueKind } from './evaluation.js';
import { FlagStore } from './flag-store.js';
import { type ClientOptions, resolveClientOptions } from './options.js';
import { syncLoop } from './sync-loop.js';
import type { EvaluationEvent, FlagChange, FlagwireClient, User } from './types.js';
import { usageReporter } from './usage-reporter.js';

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
  // Usage counts (§13.2): beside each flag entry; what has no entry, by the reporter.
  store.counting = !!o.usage;
  /** An evaluation of `flagKey`, which has no entry, counted (`undefined`: the entry there is none of). */
  const missed = (flagKey: string) => reporter?.miss(flagKey);
  /** `evaluation` listeners: while there are none, evaluating does nothing more. */
  const evaluated = new Set<(event: EvaluationEvent) => void>();
  /** The value `flagKey` serves `user`; never throws (anything unexpected: the default). */
  const value = <T>(flagKey: string, user: User | undefined, defaultValue: T, kind: ValueKind): T => {
    if (evaluated.size > 0) return detail(flagKey, user, defaultValue, kind).value;
    try {
      const entry = entries.get(flagKey);
      if (entry === undefined) return missed(flagKey) ?? defaultValue;
      return servedValue(entry, user, defaultValue, kind, context) as T;
    } catch {
      return defaultValue;
    }
  };
  /** `value` with why, told to the `evaluation` listeners; never throws. */
  const detail = <T>(
    flagKey: string,
    user: User | undefined,
    defaultValue: T,
    kind: ValueKind,
    named = true,
  ): FlagDetail<T> => {
    let answer: FlagDetail<T>;
    try {
      const entry = entries.get(flagKey) ?? missed(flagKey);
      answer = servedDetail(entry, user, defaultValue, kind, context, store.loaded, named);
    } catch {
      answer = { value: defaultValue, reason: 'ERROR' };
    }
    // Each listener gets its own copy: what it changes is never what the caller gets.
    for (const listener of [...evaluated]) listener({ ...answer, key: flagKey, user });
    return answer;
  };
  /** `listener`, its throws caught and logged. */
  const guarded =
    (event: string, listener: (...args: never[]) => void) =>
    (...args: unknown[]) => {
      try {
        (listener as (...a: unknown[]) => void)(...args);
      } catch (error) {
        o.logger.error(`a "${event}" listener threw: ${(error as Error)?.stack ?? String(error)}`);
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

  const loop = syncLoop(o, store, emit, emitChanges);
  const reporter = o.usage && usageReporter(o, store, () => loop.status().state);
  /**
   * `work`, holding the process (a ref'd timer) until it settles, whatever `holdProcess` says:
   * its caller awaits it (§9), as `ready()`'s does. Bounded: every attempt has its deadline.
   */
  const held = <T>(work: Promise<T>): Promise<T> => {
    const timer = later(2 ** 31 - 1, () => {}, true);
    return work.finally(() => clearTimeout(timer));
  };
  const client: FlagwireClient = {
    ...loop,
    start() {
      reporter?.start();
      loop.start();
    },
    ready(options) {
      reporter?.start();
      return loop.ready(options);
    },
    flush: async () => !reporter || held(reporter.flush()),
    async close() {
      // Closed at once (nothing leaves closed, §9); what was counted is still sent in a last
      // report that says so (even without counts, once started), retried as §13.6 says.
      const closed = loop.close();
      if (reporter) await held(reporter.close());
      return closed;
    },

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
      const call = guarded(event, listener);
      const signal = options?.signal;
      let remove: () => unknown;
      if (event === 'evaluation') {
        // At most once per flag, user key and value (`exposure`), remembering the 10,000 seen
        // last: a set in the order last seen, the least recently seen forgotten first.
        const seen = options?.exposure && new Set<string>();
        const entry = (e: EvaluationEvent) => {
          if (seen) {
            const id = JSON.stringify([e.key, typeof e.user === 'string' ? e.user : e.user?.key, e.value]);
            const again = seen.delete(id);
            seen.add(id);
            if (again) return;
            if (seen.size > 10_000) seen.delete(seen.values().next().value!);
          }
          call(e);
        };
        evaluated.add(entry);
        remove = () => evaluated.delete(entry);
      } else {
        const entry = (e: Event) => call(...(e as Event & { args: unknown[] }).args);
        events.addEventListener(event, entry);
        remove = () => events.removeEventListener(event, entry);
      }
      // Unsubscribing takes its listener off the signal too.
      const off = () => {
        remove();
        signal?.removeEventListener('abort', off);
      };
      if (signal?.aborted) off();
      else signal?.addEventListener('abort', off);
      return off;
    },
  };
  return [client, store, emitChanges];
}
