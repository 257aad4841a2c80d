/**
 * Typed flag keys, at compile time only (nothing here reaches the bundle). `FlagwireFlags` is
 * empty until an app augments it (`flagwire types` writes the augmentation); while it is empty
 * every key type below is `string`, as before it existed. Once it names flags, the client, the
 * test client and the OpenFeature providers accept only those keys, each where its kind fits
 * (`isEnabled` a boolean flag's, `getString` a string flag's...), and answer each flag's own type.
 */
import type { JsonValue } from '../core/targeting/types.js';

/**
 * The flags of your app, by key, each with the type of the value it serves: `boolean` for
 * `boolean` and `rollout` flags, the union of a `string` flag's values, `number`, or the shape of
 * a `json` flag's values (wrap it in `JsonFlag<...>` when those values are all strings, all
 * numbers or all booleans). Empty here; augment it, or let `flagwire types` write it:
 *
 * ```ts
 * declare module 'flagwire' {
 *   interface FlagwireFlags {
 *     'new-checkout': boolean;
 *     theme: 'dark' | 'light';
 *     'max-items': number;
 *     banner: { readonly title: string };
 *   }
 * }
 * ```
 */
// biome-ignore lint/suspicious/noEmptyInterface: empty on purpose, for users to augment (declaration merging).
export interface FlagwireFlags {}

declare const jsonFlag: unique symbol;

/**
 * Marks a `json` flag in `FlagwireFlags` whose values would otherwise read as another kind
 * (all strings, all numbers or all booleans): `'levels': JsonFlag<'low' | 'high'>` is read with
 * `getJson`, not `getString`. A flag whose values include an object, an array or `null` needs no mark.
 */
export interface JsonFlag<T> {
  readonly [jsonFlag]: T;
}

/** Whether `FlagwireFlags` names any flag. */
type Typed = [keyof FlagwireFlags] extends [never] ? false : true;

/** `Then` once `FlagwireFlags` is augmented, `Otherwise` while it is empty. */
export type IfTypedFlags<Then, Otherwise> = Typed extends true ? Then : Otherwise;

/** The kind of value an entry of `FlagwireFlags` serves, as the client's methods ask for it. */
type KindOf<V> = [V] extends [JsonFlag<unknown>]
  ? 'json'
  : [V] extends [boolean]
    ? 'boolean'
    : [V] extends [string]
      ? 'string'
      : [V] extends [number]
        ? 'number'
        : 'json';

/** For each registered key, itself when its flag serves values of `Kind` (indexed to a union of keys). */
type KindKeys<Kind> = {
  [K in keyof FlagwireFlags & string]: KindOf<FlagwireFlags[K]> extends Kind ? K : never;
};

/** A flag key: one `FlagwireFlags` names once it is augmented; any string while it is empty. */
export type FlagKey = IfTypedFlags<keyof FlagwireFlags & string, string>;

/** A key of a `boolean` or `rollout` flag (`isEnabled`, `isEnabledDetail`). */
export type BooleanFlagKey = IfTypedFlags<KindKeys<'boolean'>[keyof FlagwireFlags & string], string>;

/** A key of a `string` flag (`getString`). */
export type StringFlagKey = IfTypedFlags<KindKeys<'string'>[keyof FlagwireFlags & string], string>;

/** A key of a `number` flag (`getNumber`). */
export type NumberFlagKey = IfTypedFlags<KindKeys<'number'>[keyof FlagwireFlags & string], string>;

/** A key of a `json` flag (`getJson`). */
export type JsonFlagKey = IfTypedFlags<KindKeys<'json'>[keyof FlagwireFlags & string], string>;

/** The kind of value (`boolean`, `string`, `number`, `json`) the flag of key `K` serves. */
export type FlagKindOf<K extends string> = K extends keyof FlagwireFlags ? KindOf<FlagwireFlags[K]> : never;

/**
 * The value the flag of key `K` serves: its entry in `FlagwireFlags` (unwrapped from `JsonFlag`);
 * while `FlagwireFlags` is empty, `Untyped` (by default any JSON value).
 */
export type FlagValue<K extends string, Untyped = JsonValue> = IfTypedFlags<
  K extends keyof FlagwireFlags ? (FlagwireFlags[K] extends JsonFlag<infer T> ? T : FlagwireFlags[K]) : never,
  Untyped
>;
