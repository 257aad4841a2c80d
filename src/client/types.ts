/**
 * Public types of the SDK client. The evaluation's own types (`User`, `EvaluationReason`,
 * `EvaluationDetail`) live in `../core/types.ts`, with the evaluation; they are re-exported here.
 */

import type { JsonValue } from '../core/targeting/types.js';
import type { EvaluationDetail, FlagDetail, SdkFlag, User } from '../core/types.js';
import type { SdkClientState } from '../core/wire/sdk.js';
import type { FlagwireError } from '../errors.js';
import type {
  BooleanFlagKey,
  FlagKey,
  FlagValue,
  IfTypedFlags,
  JsonFlagKey,
  NumberFlagKey,
  StringFlagKey,
} from './typed-flags.js';

export type {
  EvaluationDetail,
  EvaluationErrorCode,
  EvaluationReason,
  FlagDetail,
  User,
} from '../core/types.js';
export type {
  BooleanFlagKey,
  FlagKey,
  FlagKindOf,
  FlagValue,
  FlagwireFlags,
  IfTypedFlags,
  JsonFlag,
  JsonFlagKey,
  NumberFlagKey,
  StringFlagKey,
} from './typed-flags.js';

/**
 * One applied change of one flag. `before`/`after` are absent for a created/deleted flag. A flag
 * whose answers changed because a segment it names, or a prerequisite, changed is reported with
 * `before` and `after` the same flag.
 */
export interface FlagChange {
  key: string;
  before: SdkFlag | undefined;
  after: SdkFlag | undefined;
}

/**
 * Connection state:
 * - `idle`: created, not started;
 * - `connecting`: loading flags for the first time;
 * - `connected`: flags loaded and the stream open;
 * - `reconnecting`: the stream dropped; backing off before the next attempt;
 * - `polling`: flags are polled (`stream: false`, or the stream cannot be held meanwhile);
 * - `stale`: no word from the server for longer than `staleAfterMs`;
 * - `failed`: the key was refused (401/403); the client stopped for good;
 * - `closed`: `close()` was called.
 */
export type ConnectionState = SdkClientState;

export interface ClientStatus {
  state: ConnectionState;
  /** Whether flags from the server (or a bootstrap) are loaded. */
  ready: boolean;
  /** Epoch milliseconds of the last time the server confirmed the data current, if ever. */
  lastContactAt: number | undefined;
  /** Milliseconds since then (`Infinity` if never). */
  dataAgeMs: number;
  /** The environment revision the client holds. */
  revision: number | undefined;
  /** The error that made the client fail, or the last connection error. */
  lastError: FlagwireError | undefined;
}

/**
 * One evaluation, as `on('evaluation')` listeners get it: the flag's key, the user, and the
 * answer with why (`getDetail`'s: value, variant, reason, version, ...). Listeners get their own
 * copy: changing it changes nothing returned.
 */
export interface EvaluationEvent extends FlagDetail<unknown> {
  key: string;
  user: User | undefined;
}

/** Events of `client.on(...)`. `change:<flagKey>` fires for one flag only. */
export interface ClientEvents {
  /** Flags were loaded for the first time. */
  ready: () => void;
  /** A flag changed (created, updated, deleted), after the change is applied. */
  change: (change: FlagChange) => void;
  /** The connection state changed. */
  status: (status: ClientStatus) => void;
  /** A connection problem. Fatal ones (401/403) also put the client in `failed`. */
  error: (error: FlagwireError) => void;
  /**
   * A flag was evaluated (`isEnabled`, `getString`, ..., `getDetail`): called synchronously,
   * before the value is returned, for analytics or tracing (`flagwire/otel` maps it to
   * OpenTelemetry's attributes). Nothing extra is done while no one listens.
   */
  evaluation: (event: EvaluationEvent) => void;
}

/** An event name of `client.on(...)`: `change:<flagKey>` names a key of `FlagwireFlags` once it is augmented. */
export type ClientEventName = keyof ClientEvents | `change:${FlagKey}`;

export type ClientListener<E extends ClientEventName> = E extends keyof ClientEvents
  ? ClientEvents[E]
  : (change: FlagChange) => void;

/** Options of `client.on(...)`. */
export interface ListenerOptions {
  /** Unsubscribes when aborted (unsubscribing otherwise takes the listener off the signal too). */
  signal?: AbortSignal;
  /**
   * `evaluation` only: call the listener at most once per flag, user key and value (an
   * exposure), for experiment tracking. It remembers the 10,000 evaluated most recently (the
   * least recently evaluated forgotten first), so a listener of a client that evaluates more
   * distinct ones than that may hear one again.
   * @default false
   */
  exposure?: boolean;
}

export interface ReadyOptions {
  /** Reject with a `TIMEOUT` error after this many milliseconds (the client keeps trying). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** A Flagwire client: `createClient(options)`. */
export interface FlagwireClient {
  /**
   * Starts the client if it has not started, and resolves once flags are loaded. Rejects with
   * a `FlagwireError`: `TIMEOUT` (the client keeps trying), `UNAUTHORIZED`/`FORBIDDEN` (the
   * client stops), `ABORTED`, `CLIENT_CLOSED`.
   */
  ready(options?: ReadyOptions): Promise<void>;
  /** Starts loading and streaming without waiting; `ready()` does this too. Idempotent. */
  start(): void;
  /**
   * Whether `flagKey` is on for `user`, decided locally. Never throws: an unknown flag, a
   * client that is not ready, or anything unexpected gives `defaultValue` (default `false`).
   */
  isEnabled(flagKey: BooleanFlagKey, user?: User, defaultValue?: boolean): boolean;
  /** `isEnabled` with the reason and the bucket. Never throws. */
  isEnabledDetail(flagKey: BooleanFlagKey, user?: User, defaultValue?: boolean): EvaluationDetail;
  /**
   * The value a `string` flag serves `user`, decided locally. Never throws: an unknown flag, a
   * flag of another type, a client that is not ready, or anything unexpected gives `defaultValue`.
   * With `FlagwireFlags` augmented, the flag's own values (and so `defaultValue` one of them).
   */
  getString<K extends StringFlagKey>(
    flagKey: K,
    user: User | undefined,
    defaultValue: FlagValue<K, string>,
  ): FlagValue<K, string>;
  /** `getString` for a `number` flag. */
  getNumber<K extends NumberFlagKey>(
    flagKey: K,
    user: User | undefined,
    defaultValue: FlagValue<K, number>,
  ): FlagValue<K, number>;
  /**
   * `getString` for a `json` flag. The value is the flag's own, frozen (not a copy). While
   * `FlagwireFlags` is empty, `T` is what you expect it to hold, not checked; once augmented, the
   * flag's declared shape.
   */
  getJson: IfTypedFlags<TypedGetJson, UntypedGetJson>;
  /**
   * The value with why: the variant, the reason, the rule or prerequisite that decided. The
   * flag's type must fit `defaultValue` (a boolean: `boolean` and `rollout` flags; a string or a
   * number: flags of that type; an object, array or `null`: `json` flags); otherwise
   * `reason: 'ERROR'`, `errorCode: 'TYPE_MISMATCH'`. Never throws. Once `FlagwireFlags` is
   * augmented, any of its keys, with a default and an answer of that flag's type.
   */
  getDetail: IfTypedFlags<TypedGetDetail, UntypedGetDetail>;
  /** A copy of every flag the client holds, by key. */
  allFlags(): Record<string, SdkFlag>;
  /**
   * Subscribes; returns a function that unsubscribes. A throwing listener is logged and never
   * stops the others (nor, for `evaluation`, changes the value returned).
   */
  on<E extends ClientEventName>(event: E, listener: ClientListener<E>, options?: ListenerOptions): () => void;
  /** The connection state and the age of the data. */
  status(): ClientStatus;
  /**
   * Sends the usage counts now (`docs/protocol.md` §13.6), with every report still waiting:
   * `true` once the server accepted all of them, `false` when some wait still (they are retried)
   * or the server has usage off (asked again in about an hour) or refused the key. A serverless
   * function awaits it before it returns. While pending it holds the process, whatever
   * `holdProcess` says.
   */
  flush(): Promise<boolean>;
  /**
   * Stops all network activity and timers at once, and resolves once what was counted for usage
   * is sent, in a last report that says the client is `closed` (sent even without counts by a
   * started client): each attempt within `timeoutMs`, a failed one made again at once, 3 failed
   * attempts in all; what still could not be delivered is logged (`logger.error`) with the
   * evaluations it held. While pending it holds the process, whatever `holdProcess` says.
   * Idempotent; evaluation keeps answering from the last flags.
   */
  close(): Promise<void>;
}

/** `getJson` while `FlagwireFlags` is empty: any key, `T` taken on trust. */
export type UntypedGetJson = <T extends JsonValue = JsonValue>(
  flagKey: string,
  user: User | undefined,
  defaultValue: T,
) => T;

/** `getJson` once `FlagwireFlags` is augmented: a `json` flag's key, and its declared shape. */
export type TypedGetJson = <K extends JsonFlagKey>(
  flagKey: K,
  user: User | undefined,
  defaultValue: FlagValue<K>,
) => FlagValue<K>;

/** `getDetail` while `FlagwireFlags` is empty: any key, the type the default asks for. */
export interface UntypedGetDetail {
  (flagKey: string, user: User | undefined, defaultValue: boolean): FlagDetail<boolean>;
  (flagKey: string, user: User | undefined, defaultValue: string): FlagDetail<string>;
  (flagKey: string, user: User | undefined, defaultValue: number): FlagDetail<number>;
  <T extends JsonValue>(flagKey: string, user: User | undefined, defaultValue: T): FlagDetail<T>;
}

/** `getDetail` once `FlagwireFlags` is augmented: any of its keys, in that flag's type. */
export type TypedGetDetail = <K extends FlagKey>(
  flagKey: K,
  user: User | undefined,
  defaultValue: FlagValue<K>,
) => FlagDetail<FlagValue<K>>;
