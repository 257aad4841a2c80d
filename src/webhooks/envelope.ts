/**
 * Shape check of a parsed webhook body: what `constructEvent` promises in `WebhookEvent`.
 * Unknown fields are allowed (the service may add some); known ones must have their type.
 */
import { isObject } from '../core/is-object.js';
import { WEBHOOK_EVENT_KINDS } from '../core/limits.js';

const ACTIONS: readonly unknown[] = ['created', 'updated', 'deleted'];
const EVENT_TYPES: readonly string[] = /* @__PURE__ */ (WEBHOOK_EVENT_KINDS as readonly string[]).concat(
  'webhook.test',
);
const FLAG_TYPES: readonly unknown[] = ['boolean', 'rollout'];
const REQUEST_STATES: readonly unknown[] = [
  'open',
  'approved',
  'scheduled',
  'applied',
  'rejected',
  'withdrawn',
  'failed',
];

const isString = (value: unknown): value is string => typeof value === 'string' && value.length > 0;
const isInteger = (value: unknown, min: number): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= min;
const isPercentage = (value: unknown): value is number => isInteger(value, 0) && value <= 100;
const isDescription = (value: unknown): value is string | null => value === null || typeof value === 'string';

/**
 * Checks that `body` is a webhook event: when it is, it is a `WebhookEvent`.
 *
 * @returns `undefined` when it is, else what is wrong, naming the field (`"data.flag.key" must be ...`).
 */
export function checkEnvelope(body: unknown): string | undefined {
  if (!isObject(body)) return 'the body must be a JSON object';
  if (!isString(body.id) || !body.id.startsWith('evt_')) return '"id" must be a string starting with "evt_"';
  // Not a string: not in the list either.
  const type = body.type as string;
  if (!EVENT_TYPES.includes(type)) return `"type" must be one of ${EVENT_TYPES.join(', ')}`;
  if (!isString(body.createdAt) || Number.isNaN(Date.parse(body.createdAt))) {
    return '"createdAt" must be an ISO 8601 date string';
  }
  if (!isString(body.webhookId) || !body.webhookId.startsWith('wh_')) {
    return '"webhookId" must be a string starting with "wh_"';
  }
  if (!isString(body.project)) return '"project" must be a non-empty string';
  if (!isString(body.environment)) return '"environment" must be a non-empty string';

  const delivery = body.delivery;
  if (!isObject(delivery)) return '"delivery" must be an object';
  if (!isString(delivery.id)) return '"delivery.id" must be a non-empty string';
  if (!isInteger(delivery.attempt, 1)) return '"delivery.attempt" must be an integer >= 1';
  if (!isInteger(delivery.sentAt, 0)) return '"delivery.sentAt" must be an integer (unix seconds)';

  const data = body.data;
  if (!isObject(data)) return '"data" must be an object';
  if (type.startsWith('change_request.')) {
    // `data.action` is the type's last word (`change_request.approved`: `approved`).
    const action = type.slice(15);
    if (data.action !== action) return `"data.action" must be "${action}" on a ${type} event`;
    const request = data.changeRequest;
    if (!isObject(request)) return '"data.changeRequest" must be an object';
    if (!isString(request.id) || !request.id.startsWith('cr_')) {
      return '"data.changeRequest.id" must be a string starting with "cr_"';
    }
    if (!isString(request.title)) return '"data.changeRequest.title" must be a non-empty string';
    if (!REQUEST_STATES.includes(request.state)) {
      return `"data.changeRequest.state" must be one of ${REQUEST_STATES.join(', ')}`;
    }
    return isObject(data.actor) ? undefined : '"data.actor" must be an object';
  }
  if (type === 'webhook.test') {
    if (data.action !== 'test') return '"data.action" must be "test" on a webhook.test event';
  } else if (!ACTIONS.includes(data.action)) {
    return '"data.action" must be one of created, updated, deleted';
  } else if (type === 'segment.updated') {
    const segment = data.segment;
    if (!isObject(segment)) return '"data.segment" must be an object';
    return isString(segment.key) ? undefined : '"data.segment.key" must be a non-empty string';
  } else if (type !== 'flag.updated' && data.action !== 'updated') {
    return `"data.action" must be "updated" on a ${type} event`;
  }

  const flag = data.flag;
  if (!isObject(flag)) return '"data.flag" must be an object';
  if (!isString(flag.key)) return '"data.flag.key" must be a non-empty string';
  if (!FLAG_TYPES.includes(flag.type)) return '"data.flag.type" must be "boolean" or "rollout"';
  if (typeof flag.enabled !== 'boolean') return '"data.flag.enabled" must be a boolean';
  if (!isDescription(flag.description)) return '"data.flag.description" must be a string or null';
  if (flag.type === 'rollout' && !isPercentage(flag.percentage)) {
    return '"data.flag.percentage" must be an integer from 0 to 100 on a rollout flag';
  }

  const previous = data.previous;
  if (previous === undefined) return undefined;
  if (!isObject(previous)) return '"data.previous" must be an object';
  if ('enabled' in previous && typeof previous.enabled !== 'boolean') {
    return '"data.previous.enabled" must be a boolean';
  }
  if ('percentage' in previous && !isPercentage(previous.percentage)) {
    return '"data.previous.percentage" must be an integer from 0 to 100';
  }
  if ('description' in previous && !isDescription(previous.description)) {
    return '"data.previous.description" must be a string or null';
  }
  return undefined;
}
