/**
 * Who made a change (`docs/protocol.md` §10.6): the actors the server credits, and the one
 * reading of an actor as ops and snapshots stored it. Ops written before accounts existed carry
 * `{type: "api-key", hint}`, `{type: "dashboard"}` (then only ever the admin token) or
 * `{type: "config"}`; `actorOf` reads each as today's form, so an old journal replays into the
 * history every client reads now.
 */
import { isObject } from '../../../src/core/is-object.js';
import type { Actor } from './model.js';

/** The admin token, the break-glass credential, acting as an admin. */
export const ADMIN_TOKEN_ACTOR: Actor = Object.freeze({
  type: 'adminToken',
  id: 'admin-token',
  name: 'admin token',
}) as Actor;

/** The config file's seed flags. */
export const CONFIG_ACTOR: Actor = Object.freeze({
  type: 'system',
  id: 'config',
  name: 'config file',
}) as Actor;

/** The server applying a scheduled change request (`docs/protocol.md` §10.7). */
export const SCHEDULER_ACTOR: Actor = Object.freeze({
  type: 'system',
  id: 'scheduler',
  name: 'scheduled change',
}) as Actor;

/**
 * The person behind an actor, to tell one person from another (an approver must not be the
 * author, §10.7): a personal token acts as its user; any other actor is itself.
 */
export function personOf(actor: Actor): string {
  if (actor.user) return actor.user.id;
  return actor.type === 'user' ? actor.id : `${actor.type}:${actor.id}`;
}

/** The server itself: a change stamped with a time but no actor (`audit.ts`). */
export const SYSTEM_ACTOR: Actor = Object.freeze({
  type: 'system',
  id: 'system',
  name: 'the server',
}) as Actor;

/** Changes from before the history recorded actors were made through an API key. */
export const UNKNOWN_ACTOR: Actor = Object.freeze({
  type: 'apiKey',
  id: 'unknown',
  name: 'an API key',
  hint: 'unknown',
}) as Actor;

/** An environment API key, by its id and hint (never the key) and its name when it has one. */
export function apiKeyActor(id: string, hint: string, name?: string | null): Actor {
  return { type: 'apiKey', id, name: name ?? `API key ${hint}`, hint };
}

/** An actor as an op or a snapshot stored it, today's form or an older one, read as today's. */
export function actorOf(stored: unknown): Actor {
  if (!isObject(stored)) return UNKNOWN_ACTOR;
  switch (stored.type) {
    case 'api-key': {
      // Before accounts, a key was named by its hint only: the hint is its id too.
      const hint = typeof stored.hint === 'string' ? stored.hint : 'unknown';
      return apiKeyActor(hint, hint, typeof stored.name === 'string' ? stored.name : null);
    }
    case 'dashboard':
      return ADMIN_TOKEN_ACTOR;
    case 'config':
      return CONFIG_ACTOR;
    default:
      return typeof stored.type === 'string' &&
        typeof stored.id === 'string' &&
        typeof stored.name === 'string'
        ? (stored as unknown as Actor)
        : UNKNOWN_ACTOR;
  }
}
