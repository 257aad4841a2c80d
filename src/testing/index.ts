/**
 * `flagwire/testing`: for users' own tests. An in-memory client with the real client's
 * interface, and signed webhook requests for testing receivers.
 */

export type { TestClient, TestClientOptions, TestFlag } from './test-client.js';
export { createTestClient } from './test-client.js';
export type { SignedWebhookRequestOptions } from './webhooks.js';
export { buildWebhookEvent, createSignedWebhookRequest, signWebhookBody } from './webhooks.js';
