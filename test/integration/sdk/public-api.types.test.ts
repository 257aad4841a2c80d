/**
 * Type-level tests of the public API (`expectTypeOf`): checked by `tsc` (npm run typecheck)
 * and run as ordinary tests.
 */
import type { Provider } from '@openfeature/server-sdk';
import { describe, expectTypeOf, it } from 'vitest';
import type { FlagwireServer } from '../../../server/index.js';
import { startServer } from '../../../server/index.js';
import {
  type ChangeRequestEvent,
  type ClientStatus,
  constructEvent,
  createClient,
  createManagementClient,
  type EvaluationDetail,
  type EvaluationReason,
  type Flag,
  type FlagChange,
  type FlagwireClient,
  type FlagwireError,
  isFlagwireError,
  verifySignature,
  type WebhookActor,
  type WebhookChangeRequest,
  type WebhookEvent,
} from '../../../src/index.js';
import type { FlagwireProvider } from '../../../src/openfeature/index.js';
import { createTestClient, type TestClient } from '../../../src/testing/index.js';

describe('public API types', () => {
  it('types the client', () => {
    expectTypeOf(createClient).returns.toEqualTypeOf<FlagwireClient>();
    expectTypeOf<FlagwireClient['isEnabled']>().returns.toEqualTypeOf<boolean>();
    expectTypeOf<FlagwireClient['isEnabledDetail']>().returns.toEqualTypeOf<EvaluationDetail>();
    expectTypeOf<EvaluationDetail['reason']>().toEqualTypeOf<EvaluationReason>();
    expectTypeOf<FlagwireClient['status']>().returns.toEqualTypeOf<ClientStatus>();
    // Type-level only: declared, never called.
    const check = (client: FlagwireClient) => {
      client.on('change', (change) => expectTypeOf(change).toEqualTypeOf<FlagChange>());
      client.on('change:new-checkout', (change) => expectTypeOf(change).toEqualTypeOf<FlagChange>());
      client.on('status', (status) => expectTypeOf(status).toEqualTypeOf<ClientStatus>());
      client.on('error', (error) => expectTypeOf(error).toEqualTypeOf<FlagwireError>());
      expectTypeOf(client.on('ready', () => {})).toEqualTypeOf<() => void>();
      // @ts-expect-error: an unknown event name
      client.on('nope', () => {});
      // @ts-expect-error: a user is a string or an object with a string key
      client.isEnabled('f', 42);
    };
    expectTypeOf(check).toBeFunction();
  });

  it('narrows flags and webhook events', () => {
    const flag = {} as Flag;
    if (flag.type === 'rollout') expectTypeOf(flag.percentage).toEqualTypeOf<number>();
    // @ts-expect-error: a boolean flag has no percentage
    if (flag.type === 'boolean') flag.percentage;
    expectTypeOf(constructEvent).returns.toEqualTypeOf<WebhookEvent>();
    // Type-level only: declared, never called.
    const narrow = (event: WebhookEvent) => {
      if (event.type === 'flag.enabled') expectTypeOf(event.data.action).toEqualTypeOf<'updated'>();
      if (event.type === 'flag.updated') {
        expectTypeOf(event.data.action).toEqualTypeOf<'created' | 'updated' | 'deleted'>();
      }
      if (event.type === 'change_request.approved') {
        expectTypeOf(event.data.action).toEqualTypeOf<'approved'>();
        expectTypeOf(event.data.changeRequest).toEqualTypeOf<WebhookChangeRequest>();
        expectTypeOf(event.data.actor).toEqualTypeOf<WebhookActor>();
        expectTypeOf(event).toExtend<ChangeRequestEvent>();
      }
    };
    expectTypeOf(narrow).toBeFunction();
    expectTypeOf(verifySignature).returns.toEqualTypeOf<boolean>();
    expectTypeOf(verifySignature).parameter(0).toEqualTypeOf<string | Uint8Array | ArrayBuffer>();
  });

  it('types errors, the management client, the test client, the provider and the server', () => {
    expectTypeOf(isFlagwireError).guards.toEqualTypeOf<FlagwireError>();
    expectTypeOf<FlagwireError['status']>().toEqualTypeOf<number | undefined>();
    const admin = createManagementClient({ baseUrl: 'http://x/api/v1', apiKey: 'k' });
    expectTypeOf(admin.flags.get).returns.toEqualTypeOf<Promise<Flag>>();
    expectTypeOf(admin.flags.delete).returns.toEqualTypeOf<Promise<void>>();
    expectTypeOf(createTestClient).returns.toEqualTypeOf<TestClient>();
    expectTypeOf<TestClient>().toMatchTypeOf<FlagwireClient>();
    expectTypeOf<FlagwireProvider>().toMatchTypeOf<Provider>();
    expectTypeOf(startServer).returns.toEqualTypeOf<Promise<FlagwireServer>>();
  });
});
