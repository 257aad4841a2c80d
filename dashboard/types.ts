/**
 * Shapes of the admin API's answers (`docs/protocol.md` §10.3, §8.3), by the names the page
 * uses: the wire types of `src/core/admin-wire.ts`, the ones the server answers by.
 */
import type { SegmentRecord, WebhookDeliveryAttempt, WebhookDeliveryRecord } from '../src/core/admin-wire.js';

export type {
  Actor,
  ApiKeyView,
  ChangeInput,
  ChangeRequest,
  CreatedApiKey,
  EnvSource,
  EnvView,
  HistoryChange,
  HistoryEntry,
  KeyAccess,
  NewApiKeyInput,
  Overview,
  ProjectView,
  SessionAnswer,
} from '../src/core/admin-wire.js';
export type { Flag, FlagType, Webhook, WebhookEventKind } from '../src/core/types.js';
/** People (`docs/protocol.md` §10.6): accounts, roles, sessions, personal tokens. */
export type {
  CreatedToken,
  Invited,
  ProjectRoles,
  Role,
  SessionUser,
  SessionView,
  SignedInVia,
  TokenView,
  User,
} from '../src/core/wire/people.js';

/** One attempt at a delivery (`docs/protocol.md` §8.3 `attemptLog`). */
export type DeliveryAttempt = WebhookDeliveryAttempt;

/** A webhook delivery as the deliveries log lists it, with the key it is about and its attempts. */
export type Delivery = WebhookDeliveryRecord;

/** A segment as `/segments` answers it (`docs/protocol.md` §12.3). */
export type SegmentView = SegmentRecord;

/** A segment's rule: conditions only (a segment serves nothing). */
export type SegmentRule = SegmentView['rules'][number];
