/**
 * `flagwire`: the SDK entry point. Runs in Node >= 20, browsers and Web-standard
 * runtimes; nothing here imports a `node:` module.
 */
export { createClient } from './client/create-client.js';
export type { ClientLogger, ClientOptions, UsageOptions } from './client/options.js';
export type {
  BooleanFlagKey,
  ClientEventName,
  ClientEvents,
  ClientListener,
  ClientStatus,
  ConnectionState,
  EvaluationDetail,
  EvaluationErrorCode,
  EvaluationEvent,
  EvaluationReason,
  FlagChange,
  FlagDetail,
  FlagKey,
  FlagKindOf,
  FlagValue,
  FlagwireClient,
  FlagwireFlags,
  IfTypedFlags,
  JsonFlag,
  JsonFlagKey,
  ListenerOptions,
  NumberFlagKey,
  ReadyOptions,
  StringFlagKey,
  TypedGetDetail,
  TypedGetJson,
  UntypedGetDetail,
  UntypedGetJson,
  User,
} from './client/types.js';
export { bucketOf, isInRollout } from './core/bucketing.js';
export {
  API_KEY_PATTERN,
  DESCRIPTION_MAX_LENGTH,
  FLAG_KEY_MAX_LENGTH,
  FLAG_KEY_PATTERN,
  WEBHOOK_EVENT_KINDS,
} from './core/limits.js';
export type {
  Clause,
  ClauseOperator,
  JsonValue,
  Prerequisite,
  Rule,
  Segment,
  Serve,
  SplitSlice,
  Target,
} from './core/targeting/types.js';
export type {
  AnyFlagType,
  BooleanFlag,
  CreatedWebhook,
  CreateFlagInput,
  CreateWebhookInput,
  ErrorBody,
  Flag,
  FlagType,
  RolloutFlag,
  SdkFlag,
  SdkFlagUpdate,
  SdkSegment,
  SdkSegmentUpdate,
  SdkSnapshot,
  UpdateFlagInput,
  UpdateWebhookInput,
  ValueFlag,
  ValueFlagType,
  Webhook,
  WebhookEventKind,
} from './core/types.js';
export type { FlagwireErrorCode, FlagwireErrorOptions } from './errors.js';
export { FlagwireError, isFlagwireError } from './errors.js';
export type {
  Change,
  ChangeAction,
  ChangeConflict,
  ChangeConflictError,
  ChangeInput,
  ChangeKind,
  ChangePreview,
  ChangeRequest,
  ChangeRequestCalls,
  ChangeRequestFilter,
  ChangeRequestState,
  CreateChangeRequestInput,
  ProposalInput,
  Review,
  ReviewInput,
  UpdateChangeRequestInput,
} from './management/change-requests.js';
export { isChangeConflict } from './management/change-requests.js';
export type {
  CreateSegmentInput,
  DeliveryFilter,
  ManagementClient,
  ManagementClientOptions,
  RotatedWebhook,
  SegmentRecord,
  UpdateSegmentInput,
  WebhookDeliveryAttempt,
  WebhookDeliveryRecord,
} from './management/create-management-client.js';
export { createManagementClient } from './management/create-management-client.js';
export type { CallOptions } from './management/request.js';
export type {
  FlagUsage,
  FlagUsageSeries,
  StaleFlag,
  StaleReason,
  StaleReport,
  UnknownKeyUsage,
  UsageCalls,
  UsageClient,
  UsageMarkInput,
  UsageRange,
} from './management/usage.js';
export type { PreconditionFailedError, Versioned, WriteOptions } from './management/versions.js';
export { isPreconditionFailed } from './management/versions.js';
export type {
  ChangeRequestAction,
  ChangeRequestEvent,
  ChangeRequestEventData,
  ConstructEventOptions,
  FlagDisabledEvent,
  FlagEnabledEvent,
  FlagUpdatedEvent,
  HeadersOrSignature,
  RawBody,
  SegmentUpdatedEvent,
  WebhookAction,
  WebhookActor,
  WebhookChangeRequest,
  WebhookDelivery,
  WebhookEvent,
  WebhookEventBase,
  WebhookEventData,
  WebhookFlagPrevious,
  WebhookSegment,
  WebhookTestEvent,
  WebhookVerificationErrorCode,
} from './webhooks/index.js';
export { constructEvent, verifySignature, WebhookVerificationError } from './webhooks/index.js';
