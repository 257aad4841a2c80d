/**
 * `flagwire`: the SDK entry point. Runs in Node >= 20, browsers and Web-standard
 * runtimes; nothing here imports a `node:` module.
 */

export {
  API_KEY_PATTERN,
  DESCRIPTION_MAX_LENGTH,
  FLAG_KEY_MAX_LENGTH,
  FLAG_KEY_PATTERN,
  WEBHOOK_EVENT_KINDS,
} from './core/limits.js';
export type {
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
  SdkSnapshot,
  UpdateFlagInput,
  UpdateWebhookInput,
  Webhook,
  WebhookEventKind,
} from './core/types.js';
