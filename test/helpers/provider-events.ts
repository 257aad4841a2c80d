/**
 * The provider-event cases both OpenFeature providers must pass alike (issue 33; spec 1.7.5,
 * 2.8.1, 5.1.5): no `CONFIGURATION_CHANGED` before `READY`, and a key revoked while streaming as
 * one `PROVIDER_ERROR` with `PROVIDER_FATAL` that says 401, status `FATAL`. Written once, run by
 * `test/openfeature.test.ts` (server SDK) and `test/openfeature-web.test.ts` (web SDK).
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
  };
}

interface Provider {
  readonly client: FlagwireClient;
  readonly events: { addHandler(event: string, handler: (details?: unknown) => void): void };
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
}

export function providerEventCases(server: () => TestServer, c: ProviderEventCases): void {
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
