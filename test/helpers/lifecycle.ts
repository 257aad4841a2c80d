/** Shared steps of the lifecycle tests (`docs/protocol.md` §10.3): making environments, keys and flags. */
import { expect } from 'vitest';
import type { AdminCaller } from './admin.js';

/** Asserts an error answer: its status and exactly `{error, message}` with `code`. */
export async function expectError(res: Response, status: number, code: string): Promise<string> {
  expect(res.status).toBe(status);
  const body = (await res.json()) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['error', 'message']);
  expect(body.error).toBe(code);
  expect(typeof body.message).toBe('string');
  return body.message as string;
}

/** Creates project `project` (if new) and its environment `env`; answers the environment's admin path. */
export async function makeEnv(admin: AdminCaller, project: string, env: string): Promise<string> {
  const made = await admin.call('POST', '/projects', { key: project });
  expect([201, 409]).toContain(made.status);
  const res = await admin.call('POST', `/projects/${project}/environments`, { key: env });
  expect(res.status).toBe(201);
  return `/environments/${project}/${env}`;
}

/** A new API key of the environment at `envPath`. */
export async function makeKey(
  admin: AdminCaller,
  envPath: string,
  access: 'full' | 'read-only' = 'full',
): Promise<{ id: string; key: string }> {
  const res = await admin.call('POST', `${envPath}/keys`, { access });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; key: string };
}

/** An answer's JSON, read loosely (the tests check its shape). */
// biome-ignore lint/suspicious/noExplicitAny: answers are checked by the tests' expectations
export type Json = Record<string, any>;

/** Sends `body` to the admin path and expects `status`; answers the JSON. */
export async function sendOk(
  admin: AdminCaller,
  method: string,
  path: string,
  body: unknown,
  status = 200,
): Promise<Json> {
  const res = await admin.call(method, path, body);
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return text ? JSON.parse(text) : {};
}
