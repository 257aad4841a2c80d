/**
 * Stale flags (`docs/protocol.md` §13.7), first match: `UNUSED` (last evaluated more than 30 days
 * ago), `NEVER_EVALUATED` (created more than 7 days ago, never evaluated), `SINGLE_VALUE` (its
 * configuration unchanged for more than 7 days, and every evaluation of the last 7 days served one
 * variant, none of them the caller's default): with the value to hard-code. A flag marked
 * `permanent`, or snoozed until after `now`, is never stale.
 */
import type { JsonValue } from '../../src/core/targeting/types.js';
import type { Environment, StoredFlag } from './model.js';
import { DAY, type EnvUsage, HOUR, parseRowKey } from './usage-model.js';

export const STALE_RULES = { unusedDays: 30, neverEvaluatedDays: 7, singleValueDays: 7 } as const;

export type StaleReason = 'UNUSED' | 'NEVER_EVALUATED' | 'SINGLE_VALUE';

export interface StaleFlag {
  key: string;
  reason: StaleReason;
  message: string;
  lastEvaluatedAt?: string;
  createdAt?: string;
  value?: JsonValue;
  variant?: string;
}

const days = (ms: number) => Math.floor(ms / DAY);

/** The one variant the flag served in the last `singleValueDays`, if it served exactly one (and no default). */
function singleVariant(key: string, usage: EnvUsage, now: number): string | undefined {
  const hour = Math.floor(now / HOUR);
  let variant: string | undefined;
  for (let h = hour - STALE_RULES.singleValueDays * 24 + 1; h <= hour; h++) {
    const rows = usage.hours.get(h);
    if (!rows) continue;
    for (const row of rows.keys()) {
      const fields = parseRowKey(row);
      if (fields.key !== key) continue;
      if (fields.variant === null || fields.reason === 'ERROR') return undefined;
      if (variant !== undefined && variant !== fields.variant) return undefined;
      variant = fields.variant;
    }
  }
  return variant;
}

function servedBy(flag: StoredFlag, variant: string): JsonValue | undefined {
  if (flag.type === 'boolean' || flag.type === 'rollout') return variant === 'on';
  return flag.variants?.[variant];
}

/** Why `flag` is stale at `now`, or `null` (also for a flag marked permanent or snoozed). */
export function staleOf(flag: StoredFlag, usage: EnvUsage | undefined, now: number): StaleFlag | null {
  const mark = usage?.marks.get(flag.key);
  if (mark?.permanent || (mark?.snoozedUntil ?? 0) > now) return null;
  const key = flag.key;
  const last = usage?.last.get(key);
  if (last !== undefined && now - last > STALE_RULES.unusedDays * DAY) {
    return {
      key,
      reason: 'UNUSED',
      lastEvaluatedAt: new Date(last).toISOString(),
      message: `not evaluated for ${days(now - last)} days`,
    };
  }
  const created = Date.parse(flag.createdAt);
  if (last === undefined) {
    if (!(now - created > STALE_RULES.neverEvaluatedDays * DAY)) return null;
    return {
      key,
      reason: 'NEVER_EVALUATED',
      createdAt: flag.createdAt,
      message: `never evaluated, created ${days(now - created)} days ago`,
    };
  }
  const unchanged = now - Date.parse(flag.updatedAt);
  if (!(unchanged > STALE_RULES.singleValueDays * DAY) || !usage) return null;
  const variant = singleVariant(key, usage, now);
  const value = variant === undefined ? undefined : servedBy(flag, variant);
  if (variant === undefined || value === undefined) return null;
  const shown = JSON.stringify(value);
  return {
    key,
    reason: 'SINGLE_VALUE',
    value,
    variant,
    lastEvaluatedAt: new Date(last).toISOString(),
    message: `served only ${shown} (${variant}) for ${STALE_RULES.singleValueDays} days, unchanged for ${days(unchanged)} days: hard-code ${shown}`,
  };
}

/** `GET /usage/stale`. */
export function staleReport(env: Environment, now: number) {
  const flags: StaleFlag[] = [];
  const sorted = [...env.flags.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (const flag of sorted) {
    const stale = staleOf(flag, env.usage, now);
    if (stale) flags.push(stale);
  }
  return { at: new Date(now).toISOString(), rules: STALE_RULES, flags };
}
