/**
 * `createManagementClient()`: typed calls for every management endpoint
 * (`docs/protocol.md` §3, §8.3, §12.3). Works wherever `fetch` does.
 */

import { resolveConnection } from '../core/connection.js';
import type {
  CreatedWebhook,
  CreateFlagInput,
  CreateWebhookInput,
  Flag,
  SegmentRecord,
  UpdateFlagInput,
  UpdateWebhookInput,
  Webhook,
  WebhookDeliveryAttempt,
  WebhookDeliveryRecord,
} from '../core/types.js';
import { FlagwireError } from '../errors.js';
import { type ChangeRequestCalls, changeRequestCalls } from './change-requests.js';
import { type CallOptions, call, type RequestSettings } from './request.js';
import { type UsageCalls, usageCalls } from './usage.js';
import { ifMatchHeader, type Versioned, versionOfEtag, type WriteOptions } from './versions.js';

export type { SegmentRecord, WebhookDeliveryAttempt, WebhookDeliveryRecord };

export interface ManagementClientOptions {
  /**
   * The management base URL with `/api/v1`, e.g. `http://127.0.0.1:8787/api/v1`; or, with a
   * personal access token, an environment of the admin API,
   * `http://127.0.0.1:8787/admin/api/environments/PROJECT/ENVIRONMENT` (`docs/protocol.md` §10.6).
   */
  baseUrl: string;
  /**
   * A full-access API key for writes and webhooks (a read-only key can list and read flags), or a
   * personal access token (`fw_pat_...`) acting with its user's role.
   */
  apiKey: string;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /**
   * Timeout of one request.
   * @default 10000
   */
  timeoutMs?: number;
  /**
   * Retries of GET and DELETE calls on network errors, 429 and 503 (honouring `Retry-After`). A
   * pending call holds the process through its waits, so an awaiting script gets its error.
   * @default 2
   */
  retries?: number;
}

// The segment bodies: derived from their schemas (`src/core/schemas/segments.ts`).
export type { CreateSegmentInput, UpdateSegmentInput } from '../core/wire/segments.js';

import type { CreateSegmentInput, UpdateSegmentInput } from '../core/wire/segments.js';

/** Which deliveries `webhooks.deliveries` lists. */
export interface DeliveryFilter {
  status?: 'pending' | 'succeeded' | 'failed';
  /** The flag key the event is about. */
  flag?: string;
}

/** The answer to a secret rotation: the webhook, the new secret (shown once) and when the old one stops signing. */
export interface RotatedWebhook extends Webhook {
  secret: string;
  previousSecretExpiresAt: string;
}

export interface ManagementClient {
  flags: {
    list(options?: CallOptions): Promise<Flag[]>;
    get(key: string, options?: CallOptions): Promise<Flag>;
    /** The flag and its version, to pass as `ifVersion` to `update` or `delete` (§3.3). */
    read(key: string, options?: CallOptions): Promise<Versioned<Flag>>;
    /** In an environment whose changes need approvals, rejects with `APPROVAL_REQUIRED` (see `changeRequests`). */
    create(body: CreateFlagInput, options?: CallOptions): Promise<Flag>;
    /**
     * With `ifVersion`, rejects with `PRECONDITION_FAILED` (and the flag as it is) when it moved.
     * In an environment whose changes need approvals, rejects with `APPROVAL_REQUIRED` unless the
     * key bypasses them: propose the change instead (`changeRequests.proposeFlagUpdate`).
     */
    update(key: string, patch: UpdateFlagInput, options?: WriteOptions): Promise<Flag>;
    /** In an environment whose changes need approvals, rejects with `APPROVAL_REQUIRED` (see `changeRequests`). */
    delete(key: string, options?: WriteOptions): Promise<void>;
  };
  /** Segments (`docs/protocol.md` §12.3); deleting one a flag names rejects with `CONFLICT`. */
  segments: {
    list(options?: CallOptions): Promise<SegmentRecord[]>;
    get(key: string, options?: CallOptions): Promise<SegmentRecord>;
    /** The segment and its version, to pass as `ifVersion` to `update` or `delete` (§3.3). */
    read(key: string, options?: CallOptions): Promise<Versioned<SegmentRecord>>;
    /** In an environment whose changes need approvals, rejects with `APPROVAL_REQUIRED` (see `changeRequests`). */
    create(body: CreateSegmentInput, options?: CallOptions): Promise<SegmentRecord>;
    /**
     * With `ifVersion`, rejects with `PRECONDITION_FAILED` (and the segment as it is) when it
     * moved. In an environment whose changes need approvals, rejects with `APPROVAL_REQUIRED`
     * unless the key bypasses them: propose the change instead (`changeRequests.create`).
     */
    update(key: string, patch: UpdateSegmentInput, options?: WriteOptions): Promise<SegmentRecord>;
    /** In an environment whose changes need approvals, rejects with `APPROVAL_REQUIRED` (see `changeRequests`). */
    delete(key: string, options?: WriteOptions): Promise<void>;
  };
  webhooks: {
    list(options?: CallOptions): Promise<Webhook[]>;
    get(id: string, options?: CallOptions): Promise<Webhook>;
    create(body: CreateWebhookInput, options?: CallOptions): Promise<CreatedWebhook>;
    update(id: string, patch: UpdateWebhookInput, options?: CallOptions): Promise<Webhook>;
    delete(id: string, options?: CallOptions): Promise<void>;
    /** The webhook's deliveries, newest first; only those of `status` or about `flag` when given. */
    deliveries(id: string, options?: CallOptions & DeliveryFilter): Promise<WebhookDeliveryRecord[]>;
    redeliver(id: string, deliveryId: string, options?: CallOptions): Promise<WebhookDeliveryRecord>;
    test(id: string, options?: CallOptions): Promise<WebhookDeliveryRecord>;
    rotateSecret(id: string, options?: CallOptions): Promise<RotatedWebhook>;
  };
  /** Usage insights (`docs/protocol.md` §13.7): stale flags for CI, per-flag usage, marks, clients. */
  usage: UsageCalls;
  /**
   * Change requests (`docs/protocol.md` §10.7): propose, review, apply and schedule changes of
   * flags and segments. The admin API's only: `baseUrl` an environment of it
   * (`.../admin/api/environments/PROJECT/ENVIRONMENT`) and `apiKey` a personal access token.
   */
  changeRequests: ChangeRequestCalls;
}

const segment = (value: string) => encodeURIComponent(value);

/**
 * Creates a management client. Every non-2xx rejects with a `FlagwireError` carrying `status`,
 * the service's `code` (`NOT_FOUND`, `CONFLICT`, `VALIDATION_ERROR`, `APPROVAL_REQUIRED`, ...)
 * and `message`.
 */
export function createManagementClient(options: ManagementClientOptions): ManagementClient {
  const settings: RequestSettings = {
    ...resolveConnection(options),
    timeoutMs: options.timeoutMs ?? 10_000,
    retries: options.retries ?? 2,
  };
  const get = <T>(path: string, o?: CallOptions) => call<T>(settings, 'GET', path, undefined, o);
  const send = <T>(method: string, path: string, body: unknown, o?: WriteOptions) =>
    call<T>(settings, method, path, body, o, { headers: ifMatchHeader(o) });
  /** A GET answering the body and the version its `ETag` names. */
  const read = async <T>(path: string, o?: CallOptions): Promise<Versioned<T>> => {
    let version: number | undefined;
    const value = await call<T>(settings, 'GET', path, undefined, o, {
      onHeaders: (headers) => {
        version = versionOfEtag(headers.get('etag'));
      },
    });
    if (version === undefined)
      throw new FlagwireError('INVALID_RESPONSE', `GET ${settings.base}${path} answered no version (ETag)`, {
        method: 'GET',
        url: `${settings.base}${path}`,
      });
    return { value, version };
  };
  const readFlag = (key: string, o?: CallOptions) => read<Flag>(`/flags/${segment(key)}`, o);
  return {
    flags: {
      list: (o) => get('/flags', o),
      get: (key, o) => get(`/flags/${segment(key)}`, o),
      read: readFlag,
      create: (body, o) => send('POST', '/flags', body, o),
      update: (key, patch, o) => send('PATCH', `/flags/${segment(key)}`, patch, o),
      delete: (key, o) => send('DELETE', `/flags/${segment(key)}`, undefined, o),
    },
    segments: {
      list: (o) => get('/segments', o),
      get: (key, o) => get(`/segments/${segment(key)}`, o),
      read: (key, o) => read(`/segments/${segment(key)}`, o),
      create: (body, o) => send('POST', '/segments', body, o),
      update: (key, patch, o) => send('PATCH', `/segments/${segment(key)}`, patch, o),
      delete: (key, o) => send('DELETE', `/segments/${segment(key)}`, undefined, o),
    },
    webhooks: {
      list: (o) => get('/webhooks', o),
      get: (id, o) => get(`/webhooks/${segment(id)}`, o),
      create: (body, o) => send('POST', '/webhooks', body, o),
      update: (id, patch, o) => send('PATCH', `/webhooks/${segment(id)}`, patch, o),
      delete: (id, o) => send('DELETE', `/webhooks/${segment(id)}`, undefined, o),
      deliveries: (id, o = {}) => {
        const query = new URLSearchParams();
        if (o.status !== undefined) query.set('status', o.status);
        if (o.flag !== undefined) query.set('flag', o.flag);
        return get(`/webhooks/${segment(id)}/deliveries${query.size ? `?${query}` : ''}`, o);
      },
      redeliver: (id, deliveryId, o) =>
        send('POST', `/webhooks/${segment(id)}/deliveries/${segment(deliveryId)}/redeliver`, undefined, o),
      test: (id, o) => send('POST', `/webhooks/${segment(id)}/test`, undefined, o),
      rotateSecret: (id, o) => send('POST', `/webhooks/${segment(id)}/rotate-secret`, undefined, o),
    },
    usage: usageCalls(settings),
    changeRequests: changeRequestCalls(settings, readFlag),
  };
}
