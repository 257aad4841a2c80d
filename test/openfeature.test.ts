/** `FlagwireProvider` with the real OpenFeature server SDK against the reference server. */
import { ErrorCode, type EventDetails, OpenFeature, ProviderEvents } from '@openfeature/server-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bucketOf } from '../src/index.js';
import { FlagwireProvider } from '../src/openfeature/index.js';
import { KEYS, startTestServer, type TestServer } from './helpers/server.js';

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

  it('reports an error at initialization for a refused key', async () => {
    const bad = new FlagwireProvider({ baseUrl: t.base, apiKey: `fw_live_${'q'.repeat(32)}`, logger: false });
    await expect(OpenFeature.setProviderAndWait('bad', bad)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await bad.onClose();
  });
});

describe('FlagwireProvider events', () => {
  it('reports PROVIDER_STALE when the stream drops and PROVIDER_READY when it is back', async () => {
    const { startProxy } = await import('./helpers/proxy.js');
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
