/**
 * `FlagwireFlags` while it is empty (nobody augmented it): every key type is `string` and every
 * method takes any key as before typed flags existed (typed-flags.test.ts compiles the augmented
 * case in a project of its own, since an augmentation here would type this whole program).
 */
import { describe, expectTypeOf, it } from 'vitest';
import type {
  BooleanFlagKey,
  Flag,
  FlagDetail,
  FlagKey,
  FlagValue,
  FlagwireClient,
  FlagwireFlags,
  JsonFlagKey,
  JsonValue,
  NumberFlagKey,
  StringFlagKey,
} from '../../../src/index.js';
import type { FlagwireProvider } from '../../../src/openfeature/index.js';
import type { TestClient, TestFlag } from '../../../src/testing/index.js';

describe('typed flags, not augmented', () => {
  it('keeps every key a string', () => {
    expectTypeOf<keyof FlagwireFlags>().toEqualTypeOf<never>();
    expectTypeOf<FlagKey>().toEqualTypeOf<string>();
    expectTypeOf<BooleanFlagKey>().toEqualTypeOf<string>();
    expectTypeOf<StringFlagKey>().toEqualTypeOf<string>();
    expectTypeOf<NumberFlagKey>().toEqualTypeOf<string>();
    expectTypeOf<JsonFlagKey>().toEqualTypeOf<string>();
    expectTypeOf<FlagValue<'anything'>>().toEqualTypeOf<JsonValue>();
    expectTypeOf<TestFlag>().toEqualTypeOf<Flag>();
    expectTypeOf<Parameters<TestClient['remove']>[0]>().toEqualTypeOf<string>();
    expectTypeOf<Parameters<FlagwireProvider['resolveBooleanEvaluation']>[0]>().toEqualTypeOf<string>();
  });

  it('answers as before: any key, the default type, getJson taken on trust', () => {
    // Type-level only: declared, never called.
    const check = (client: FlagwireClient, key: string) => {
      expectTypeOf(client.isEnabled(key, 'u')).toEqualTypeOf<boolean>();
      expectTypeOf(client.getString(key, 'u', 'x')).toEqualTypeOf<string>();
      expectTypeOf(client.getNumber('any-key', 'u', 1)).toEqualTypeOf<number>();
      expectTypeOf(client.getJson<{ a: number }>(key, 'u', { a: 1 })).toEqualTypeOf<{ a: number }>();
      expectTypeOf(client.getJson(key, 'u', [1, 2])).toEqualTypeOf<number[]>();
      expectTypeOf(client.getDetail(key, 'u', true)).toEqualTypeOf<FlagDetail<boolean>>();
      expectTypeOf(client.getDetail(key, 'u', 'x')).toEqualTypeOf<FlagDetail<string>>();
      expectTypeOf(client.getDetail(key, 'u', 2)).toEqualTypeOf<FlagDetail<number>>();
      client.on(`change:${key}`, (change) => expectTypeOf(change.key).toEqualTypeOf<string>());
      // @ts-expect-error: still not any event name
      client.on('changes', () => {});
    };
    expectTypeOf(check).toBeFunction();
  });
});
