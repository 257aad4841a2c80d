/**
 * `FlagwireWebProvider` (`flagwire/openfeature/web`) with the real OpenFeature web SDK against
 * the reference server: synchronous resolutions with the same reasons as the server provider
 * (a served `null` included), the global context's `targetingKey` as the user, context changes,
 * and client events as provider events, a refused or revoked key as one `PROVIDER_ERROR` with
 * `PROVIDER_FATAL`. (The same provider in Chromium, under React: test/e2e/browser/react.test.ts.)
 */
import {
  ErrorCode,
  type EventDetails,
  OpenFeature,
  ProviderEvents,
  ProviderStatus,
} from '@openfeature/web-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bucketOf, createClient } from '../../../src/index.js';
import { FlagwireWebProvider } from '../../../src/openfeature/web/index.js';
import { providerEventCases } from '../../helpers/provider-events.js';
import { KEYS, startTestServer, type TestServer } from '../../helpers/server.js';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
  await t.api('POST', '/flags', { key: 'web-bool', type: 'boolean' });
  await t.api('PATCH', '/flags/web-bool', { enabled: true });
  await OpenFeature.setContext({ targetingKey: 'user-1' });
  await OpenFeature.setProviderAndWait(
    new FlagwireWebProvider({ baseUrl: t.base, apiKey: KEYS.acmeProdRead, logger: false }),
  );
});

afterAll(async () => {
  await OpenFeature.close();
  await t?.close();
});

/** A user in the seeded 25 % rollout and one out of it. */
function usersAroundSeeded(): { inside: string; outside: string } {
  let inside: string | undefined;
  let outside: string | undefined;
  for (let n = 0; inside === undefined || outside === undefined; n++) {
    if (bucketOf('seeded', `user-${n}`) <= 25) inside ??= `user-${n}`;
    else outside ??= `user-${n}`;
  }
  return { inside, outside };
}

describe('FlagwireWebProvider', () => {
  const client = () => OpenFeature.getClient();

  it('resolves synchronously, with the reasons of the server provider', () => {
    expect(client().getBooleanDetails('web-bool', false)).toMatchObject({
      value: true,
      reason: 'STATIC',
      variant: 'on',
    });
    expect(client().getBooleanDetails('web-none', true)).toMatchObject({
      value: true,
      errorCode: ErrorCode.FLAG_NOT_FOUND,
    });
    expect(client().getStringDetails('web-bool', 'x')).toMatchObject({
      value: 'x',
      errorCode: ErrorCode.TYPE_MISMATCH,
    });
  });

  it("evaluates a rollout for the global context's targetingKey, and follows a context change", async () => {
    const { inside, outside } = usersAroundSeeded();
    await OpenFeature.setContext({ targetingKey: inside });
    expect(client().getBooleanDetails('seeded', false)).toMatchObject({ value: true, reason: 'SPLIT' });
    await OpenFeature.setContext({ targetingKey: outside, plan: 'pro' });
    expect(client().getBooleanDetails('seeded', true)).toMatchObject({ value: false, reason: 'SPLIT' });
    await OpenFeature.setContext({});
    expect(client().getBooleanDetails('seeded', true)).toMatchObject({
      value: true,
      errorCode: ErrorCode.TARGETING_KEY_MISSING,
    });
  });

  it('emits CONFIGURATION_CHANGED with the key when a flag changes through the API', async () => {
    const changed = new Promise<string[] | undefined>((resolve) => {
      const handler = (details?: EventDetails) => {
        client().removeHandler(ProviderEvents.ConfigurationChanged, handler);
        resolve(details?.flagsChanged as string[] | undefined);
      };
      client().addHandler(ProviderEvents.ConfigurationChanged, handler);
    });
    await t.api('PATCH', '/flags/web-bool', { enabled: false });
    expect(await changed).toEqual(['web-bool']);
    expect(client().getBooleanValue('web-bool', true)).toBe(false);
  });

  it('resolves a json flag that serves null to null, not to the default (spec 2.2.3)', async () => {
    // A null reaches a client from data stored before the API took JSON objects only, or from a bootstrap.
    const own = createClient({
      baseUrl: t.base,
      apiKey: KEYS.acmeProdRead,
      offline: true,
      logger: false,
      bootstrap: [
        {
          key: 'web-null',
          type: 'json',
          enabled: true,
          description: null,
          variants: { none: null, some: { a: 1 } },
          offVariant: 'some',
          fallthrough: { variant: 'none' },
        },
      ],
    });
    await OpenFeature.setProviderAndWait('nulls', new FlagwireWebProvider(own));
    const nulls = OpenFeature.getClient('nulls');
    const details = nulls.getObjectDetails('web-null', { fallback: true });
    expect(details).toMatchObject({ value: null, variant: 'none' });
    expect(details.errorCode).toBeUndefined();
    expect(nulls.getObjectValue('web-null', { fallback: true })).toBeNull();
    await own.close();
  });
});

describe('FlagwireWebProvider lifecycle events', () => {
  providerEventCases(() => t, {
    sdk: OpenFeature,
    make: (options) => new FlagwireWebProvider(options),
    events: ProviderEvents,
    fatal: { errorCode: ErrorCode.PROVIDER_FATAL, status: ProviderStatus.FATAL },
    prefix: 'web',
    flag: { key: 'web-bool', fallback: true },
  });
});
