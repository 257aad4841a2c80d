/**
 * What an attempt's answer makes of a delivery (`docs/protocol.md` §8): 2xx succeeds; `410 Gone`
 * fails it and deactivates the webhook; anything else (or no answer) is retried on the schedule
 * with +-20 % jitter until it runs out. A test event is never retried.
 */
import type { AttemptRecord, StoredDelivery } from '../state/kernel/model.js';

/** Attempts a delivery's log keeps (the newest). */
const KEPT_ATTEMPTS = 20;

export function outcomeOf(
  delivery: StoredDelivery,
  record: AttemptRecord,
  retryDelaysMs: readonly number[],
): { next: StoredDelivery; deactivate: boolean } {
  const { statusCode: status, error: failure } = record;
  const attempt = delivery.attempts + 1;
  const log = [...(delivery.log ?? []), record].slice(-KEPT_ATTEMPTS);
  const next: StoredDelivery = { ...delivery, attempts: attempt, updatedAt: new Date().toISOString(), log };
  delete next.nextAttemptAt;
  delete next.lastError;
  delete next.lastStatusCode;
  if (status !== undefined) next.lastStatusCode = status;
  if (status !== undefined && status >= 200 && status < 300) {
    next.status = 'succeeded';
    return { next, deactivate: false };
  }
  if (status === 410) {
    next.status = 'failed';
    next.lastError = 'the receiver answered 410 Gone: the webhook was deactivated';
    return { next, deactivate: true };
  }
  next.lastError = failure ?? `the receiver answered ${status}`;
  const delay = retryDelaysMs[attempt - 1];
  if (delay === undefined || delivery.type === 'webhook.test') next.status = 'failed';
  else next.nextAttemptAt = Date.now() + Math.round(delay * (0.8 + Math.random() * 0.4));
  return { next, deactivate: false };
}
