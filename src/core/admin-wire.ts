/**
 * The admin API's shapes (`docs/protocol.md` §10): what the dashboard's API answers and takes,
 * for the server that answers and the page that reads (`dashboard/`). Types only: nothing here
 * reaches a bundle. Its own shapes are written from their schemas (`./schemas/admin.ts`, by
 * `npm run wire-types` into `./wire/admin.ts`); what it answers as `/api/v1` does (flags,
 * segments, webhooks and their deliveries: `./types.ts`; usage: `./usage-wire.ts`) is that one
 * shape, re-exported here, so the page reads every answer from this module.
 */
export type { SegmentRecord, WebhookDeliveryAttempt, WebhookDeliveryRecord } from './types.js';
export type {
  FlagUsage,
  FlagUsageSeries,
  StaleFlag,
  StaleReason,
  StaleReport,
  UnknownKeyUsage,
  UsageClient,
  UsageClients,
  UsageMarkAnswer,
  UsageMarkInput,
  UsageRange,
} from './usage-wire.js';
export type {
  Actor,
  AdminChangeEvent,
  ApiKeyView,
  CopyEnvRef,
  CopyFlagsApplyInput,
  CopyFlagsInput,
  CopyPreview,
  CreatedApiKey,
  EnvSource,
  EnvView,
  EvaluateAnswer,
  EvaluateInput,
  FlagCopy,
  HistoryChange,
  HistoryEntry,
  KeyAccess,
  KeyInput,
  KeySource,
  NewApiKeyInput,
  Overview,
  ProjectView,
  Refused,
  SegmentCopy,
  Served,
  SessionAnswer,
  SessionInput,
  StreamCounts,
  VersionedFlag,
} from './wire/admin.js';
