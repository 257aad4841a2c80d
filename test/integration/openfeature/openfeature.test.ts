/**
 * `FlagwireProvider` with the real OpenFeature server SDK against the reference server: reasons,
 * error codes, values of every type (a served `null` included, spec 2.2.3) and provider events
 * (spec 1.7.5, 2.8.1, 5.1.5: a refused or revoked key is one `PROVIDER_ERROR` with
 * `PROVIDER_FATAL`; nothing before `READY`).
 */
import {
  ErrorCode,
  type EventDetails,
  OpenFeature,
  ProviderEvents,
  ProviderStatus,
} from '@openfeature/server-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bucketOf, createClient, type Flag } from '../../../src/index.js';
import { FlagwireProvider } from '../../../src/openfeature/index.js';
import { providerEventCases } from '../../helpers/provider-events.js';
import { KEYS, startTestServer, type TestServer } from '../../helpers/server.js';

/** A json flag whose fallthrough serves `null`. */
const NULL_FLAG: Flag = {
  key: 'of-null',
  type: 'json',
  enabled: true,
  description: null,
  variants: { none: null, some: { a: 1 } },
  offVariant: 'some',
  fallthrough: { variant: 'none' },
};

let t: TestServer;
let provider: FlagwireProvider;
beforeAll(async () => {
  t = await startTestServer();
  await t.api('POST', '/flags', { key: 'of-bool', type: 'boolean' });
  await t.api('PATCH', '/flags/of-bool', { enabled: true });
  await t.api('POST', '/flags', { key: 'of-off', type: 'boolean' });
  provider = new FlagwireProvider({ baseUrl: t.base, apiKey: KEYS.acmeProdRead, logger: false });
  await OpenFeature.setProviderAndWait(provider);
});
afterAll(async () => {
  await OpenFeature.close();
  await t.close();
});

describe('FlagwireProvider', () => {
  const client = () => OpenFeature.getClient();

  it('resolves booleans with OpenFeature reasons', async () => {
    expect(await client().getBooleanDetails('of-bool', false)).toMatchObject({
      value: true,
      reason: 'STATIC',
    });
    expect(await client().getBooleanDetails('of-off', true)).toMatchObject({
      value: false,
      reason: 'DISABLED',
    });
    const user = 'user-7';
    const split = await client().getBooleanDetails('seeded', false, { targetingKey: user });
    expect(split).toMatchObject({ value: bucketOf('seeded', user) <= 25, reason: 'SPLIT' });
    expect(split.flagMetadata.bucket).toBe(bucketOf('seeded', user));
  });

  it('maps missing flags, missing targeting keys and other types onto OpenFeature error codes', async () => {
    expect(await client().getBooleanDetails('of-none', true)).toMatchObject({
      value: true,
      reason: 'ERROR',
      errorCode: ErrorCode.FLAG_NOT_FOUND,
    });
    expect(await client().getBooleanDetails('seeded', true, {})).toMatchObject({
      value: true,
      errorCode: ErrorCode.TARGETING_KEY_MISSING,
    });
    expect(await client().getStringDetails('of-bool', 'x')).toMatchObject({
      value: 'x',
      errorCode: ErrorCode.TYPE_MISMATCH,
    });
    expect(await client().getNumberValue('of-bool', 3)).toBe(3);
  });

  it('emits PROVIDER_CONFIGURATION_CHANGED with the changed key', async () => {
    const changed = new Promise<string[] | undefined>((resolve) => {
      const handler = (details?: EventDetails) => {
        const keys = (details as { flagsChanged?: string[] } | undefined)?.flagsChanged;
        if (keys?.includes('of-live')) {
          OpenFeature.removeHandler(ProviderEvents.ConfigurationChanged, handler);
          resolve(keys);
        }
      };
      OpenFeature.addHandler(ProviderEvents.ConfigurationChanged, handler);
    });
    await t.api('POST', '/flags', { key: 'of-live', type: 'boolean' });
    expect(await changed).toEqual(['of-live']);
  });

  it('resolves a json flag that serves null to null, not to the default (spec 2.2.3), as the client does', async () => {
    // The management API now takes JSON objects only (§12.1); a null reaches a client from data
    // stored before that, or from a bootstrap, as here.
    const own = createClient({
      baseUrl: t.base,
      apiKey: KEYS.acmeProdRead,
      offline: true,
      logger: false,
      bootstrap: [NULL_FLAG],
    });
    await OpenFeature.setProviderAndWait('nulls', new FlagwireProvider(own));
    const nulls = OpenFeature.getClient('nulls');
    const details = await nulls.getObjectDetails('of-null', { fallback: true });
    expect(details).toMatchObject({ value: null, variant: 'none' });
    expect(details.errorCode).toBeUndefined();
    expect(await nulls.getObjectValue('of-null', { fallback: true })).toBeNull();
    expect(own.getJson('of-null', undefined, { fallback: true })).toBeNull();
    expect(own.getDetail('of-null', undefined, { fallback: true })).toMatchObject({
      value: null,
      variant: 'none',
    });
    await own.close();
  });
});

describe('FlagwireProvider lifecycle events', () => {
  it('reports an initialize that timed out as ERROR, then READY once the flags load', async () => {
    const { startProxy } = await import('../../helpers/proxy.js');
    const proxy = await startProxy(t.server.port);
    proxy.setReject(true);
    const own = new FlagwireProvider({
      baseUrl: `${proxy.url}/api/v1`,
      apiKey: KEYS.acmeProdRead,
      logger: false,
      readyTimeoutMs: 50,
    });
    const late = OpenFeature.getClient('late');
    const errors: Array<EventDetails | undefined> = [];
    late.addHandler(ProviderEvents.Error, (details) => errors.push(details));
    await expect(OpenFeature.setProviderAndWait('late', own)).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(errors).toHaveLength(1);
    expect(late.providerStatus).toBe(ProviderStatus.ERROR);
    const ready = new Promise<void>((resolve) =>
      own.events.addHandler(ProviderEvents.Ready, () => resolve()),
    );
    proxy.setReject(false);
    await ready;
    expect(late.providerStatus).toBe(ProviderStatus.READY);
    expect(await late.getBooleanValue('of-bool', false)).toBe(true);
    await own.onClose();
    await proxy.close();
  });

  providerEventCases(() => t, {
    sdk: OpenFeature,
    make: (options) => new FlagwireProvider(options),
    events: ProviderEvents,
    fatal: { errorCode: ErrorCode.PROVIDER_FATAL, status: ProviderStatus.FATAL },
    prefix: 'of',
    flag: { key: 'of-bool', fallback: false },
  });
});

describe('FlagwireProvider events', () => {
  it('reports PROVIDER_STALE when the stream drops and PROVIDER_READY when it is back', async () => {
    const { startProxy } = await import('../../helpers/proxy.js');
    const proxy = await startProxy(t.server.port);
    const own = new FlagwireProvider({
      baseUrl: `${proxy.url}/api/v1`,
      apiKey: KEYS.acmeProdRead,
      logger: false,
      initialRetryDelayMs: 20,
      maxRetryDelayMs: 50,
    });
    const seen: string[] = [];
    const stale = new Promise<void>((resolve) =>
      own.events.addHandler(ProviderEvents.Stale, () => resolve()),
    );
    const ready = new Promise<void>((resolve) =>
      own.events.addHandler(ProviderEvents.Ready, () => {
        seen.push('ready');
        resolve();
      }),
    );
    await own.initialize();
    await new Promise<void>((resolve) => {
      if (own.client.status().state === 'connected') resolve();
      else own.client.on('status', (s) => s.state === 'connected' && resolve());
    });
    proxy.cutAll();
    await stale;
    await ready;
    expect(seen).toEqual(['ready']);
    await own.onClose();
    await proxy.close();
  });
});
