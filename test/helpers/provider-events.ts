/**
 * The provider-event cases both OpenFeature providers must pass alike (spec 1.7.5,
 * 2.8.1, 5.1.5): a key refused at initialize as one `PROVIDER_ERROR` and `PROVIDER_FATAL`, no
 * `CONFIGURATION_CHANGED` before `READY`, and a key revoked while streaming as
 * one `PROVIDER_ERROR` with `PROVIDER_FATAL` that says 401, status `FATAL`. Written once, run by
 * `test/integration/openfeature/openfeature.test.ts` (server SDK) and `test/integration/openfeature/openfeature-web.test.ts` (web SDK).
 */
import { expect, it } from 'vitest';
import type { FlagwireClient } from '../../src/index.js';
import { adminCaller } from './admin.js';
import { KEYS, type TestServer } from './server.js';
import { whenState, whenTrue } from './wait.js';

/** What of either OpenFeature SDK the cases use. */
interface Sdk {
  // biome-ignore lint/suspicious/noExplicitAny: either SDK's provider type
  setProviderAndWait(domain: string, provider: any): Promise<void>;
  getClient(domain: string): {
    addHandler(event: string, handler: (details?: Record<string, unknown>) => void): void;
    readonly providerStatus: string;
    getBooleanDetails(key: string, fallback: boolean): unknown;
  };
}

interface Provider {
  readonly client: FlagwireClient;
  readonly events: { addHandler(event: string, handler: (details?: unknown) => void): void };
  onClose(): Promise<void>;
}

export interface ProviderEventCases {
  sdk: Sdk;
  make(options: {
    baseUrl: string;
    apiKey: string;
    logger: false;
    initialRetryDelayMs?: number;
    maxRetryDelayMs?: number;
  }): Provider;
  events: { ConfigurationChanged: string; Error: string };
  fatal: { errorCode: string; status: string };
  /** A key prefix for the flags the cases create. */
  prefix: string;
  /** A boolean flag of the test server's environment, and the fallback a refused provider answers with. */
  flag: { key: string; fallback: boolean };
}

export function providerEventCases(server: () => TestServer, c: ProviderEventCases): void {
  it('rejects initialize for a refused key with PROVIDER_FATAL: one PROVIDER_ERROR, status FATAL', async () => {
    const t = server();
    const errors: Array<Record<string, unknown> | undefined> = [];
    const refused = c.sdk.getClient('refused');
    refused.addHandler(c.events.Error, (details) => errors.push(details));
    const bad = c.make({ baseUrl: t.base, apiKey: `fw_live_${'q'.repeat(32)}`, logger: false });
    const failure = await c.sdk.setProviderAndWait('refused', bad).catch((error: unknown) => error);
    // The SDK emits the failed initialize's event (spec 2.8.1); the provider adds none.
    expect(errors).toHaveLength(1);
    expect(failure).toMatchObject({
      code: c.fatal.errorCode,
      message: expect.stringMatching(/refused the API key \(401\)/),
    });
    expect(errors[0]?.message).toMatch(/refused the API key \(401\)/);
    expect(refused.providerStatus).toBe(c.fatal.status);
    // Awaited: the server SDK answers a promise, the web SDK at once.
    expect(await refused.getBooleanDetails(c.flag.key, c.flag.fallback)).toMatchObject({
      value: c.flag.fallback,
      errorCode: c.fatal.errorCode,
    });
    await bad.onClose();
  });

  it('emits no CONFIGURATION_CHANGED before READY, and the changes after it', async () => {
    const t = server();
    const own = c.make({ baseUrl: t.base, apiKey: KEYS.acmeProdRead, logger: false });
    const changed: string[] = [];
    own.events.addHandler(c.events.ConfigurationChanged, (details) =>
      changed.push(...((details as { flagsChanged?: string[] } | undefined)?.flagsChanged ?? [])),
    );
    await c.sdk.setProviderAndWait('fresh', own);
    expect(changed).toEqual([]);
    const key = `${c.prefix}-after-ready`;
    await t.api('POST', '/flags', { key, type: 'boolean' });
    await whenTrue(own.client, () => changed.includes(key));
    expect(changed).toEqual([key]);
  });

  it('turns a key revoked while streaming into one PROVIDER_ERROR with PROVIDER_FATAL that says 401, status FATAL', async () => {
    const t = server();
    const admin = await adminCaller(t.server);
    const key = (await (
      await admin.asPage('POST', '/environments/acme/production/keys', { access: 'read-only' })
    ).json()) as { id: string; key: string };
    const own = c.make({
      baseUrl: t.base,
      apiKey: key.key,
      logger: false,
      initialRetryDelayMs: 1,
      maxRetryDelayMs: 1,
    });
    await c.sdk.setProviderAndWait('revoked', own);
    await whenState(own.client, 'connected');
    const revoked = c.sdk.getClient('revoked');
    const errors: Array<Record<string, unknown> | undefined> = [];
    const failed = new Promise<void>((resolve) =>
      revoked.addHandler(c.events.Error, (details) => {
        errors.push(details);
        resolve();
      }),
    );
    expect((await admin.asPage('DELETE', `/environments/acme/production/keys/${key.id}`)).status).toBe(204);
    await failed;
    await whenState(own.client, 'failed');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      errorCode: c.fatal.errorCode,
      message: expect.stringMatching(/refused the API key \(401\)/),
    });
    expect(errors[0]?.message).not.toMatch(/terminated/);
    expect(revoked.providerStatus).toBe(c.fatal.status);
  });
}
