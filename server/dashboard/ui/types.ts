/** Shapes of the admin API's answers (`docs/protocol.md` §10.3, §8.3). */
export type { Flag, FlagType, Webhook, WebhookEventKind } from '../../../src/core/types.js';

import type { Clause } from '../../../src/core/targeting/types.js';
import type {
  WebhookDeliveryAttempt,
  WebhookDeliveryRecord,
} from '../../../src/management/create-management-client.js';
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
export type DeliveryAttempt = WebhookDeliveryAttempt;

/** A webhook delivery as the deliveries log lists it, with the key it is about and its attempts. */
export type Delivery = WebhookDeliveryRecord;
/** An API key as the keys list shows it (never its value). */
export type { KeyView as ApiKeyView } from '../../state/admin-service.js';
/** A change as the history lists it (a field whole, or a large list's keys counted: §12.5), and by whom. */
export type { Actor, HistoryChange, HistoryEntry } from '../../state/model.js';
/** A segment as `/segments` answers it (`docs/protocol.md` §12.3). */
export interface SegmentView {
  key: string;
  description: string | null;
  included: string[];
  excluded: string[];
  rules: SegmentRule[];
  createdAt: string;
  updatedAt: string;
}

/** A segment's rule: conditions only (a segment serves nothing). */
export interface SegmentRule {
  clauses: Clause[];
}
