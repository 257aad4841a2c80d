/** Shapes of the admin API's answers (`docs/protocol.md` §10.3, §8.3). */
export type { Flag, FlagType, Webhook, WebhookEventKind } from '../../../src/core/types.js';

import type { WebhookDeliveryRecord } from '../../../src/management/create-management-client.js';
import type { Source } from '../../state/model.js';

export type EnvSource = Source;

export interface EnvView {
  project: string;
  key: string;
  source: EnvSource;
  createdAt: string | null;
  streams: number;
  flags: number;
  revision: number;
}

export interface ProjectView {
  key: string;
  source: EnvSource;
  createdAt: string | null;
  environments: EnvView[];
}

export interface Overview {
  projects: ProjectView[];
}

/** One attempt at a delivery (`docs/protocol.md` §8.3 `attemptLog`). */
export interface DeliveryAttempt {
  attempt: number;
  sentAt: string;
  durationMs: number;
  /** The answer's status; `null` when there was no answer (`error` says why). */
  statusCode: number | null;
  error: string | null;
  /** The first KiB of the answer's body, as text; `null` when there was no answer. */
  response: string | null;
  /** The exact body sent. */
  request: string;
}

/** A webhook delivery as the deliveries log lists it, with the key it is about and its attempts. */
export interface Delivery extends WebhookDeliveryRecord {
  flag: string | null;
  segment: string | null;
  attemptLog: DeliveryAttempt[];
}
/** An API key as the keys list shows it (never its value). */
export type { KeyView as ApiKeyView } from '../../state/admin-service.js';
/** A change as the history lists it, and through which credential. */
export type { Actor, HistoryEntry } from '../../state/model.js';
