/**
 * Stale flags (`docs/protocol.md` §13.7), first match: `UNUSED` (last evaluated more than 30 days
 * ago), `NEVER_EVALUATED` (created more than 7 days ago, never evaluated), `SINGLE_VALUE` (its
 * configuration unchanged for more than 7 days, and every evaluation of the last 7 days served one
 * variant, none of them the caller's default): with the value to hard-code. A flag marked
 * `permanent`, or snoozed until after `now`, is never stale. What the rules read of the usage is
 * gathered once per read, in one pass over the hours, however many flags there are.
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

/**
 * Per key, what it served in the last `singleValueDays`: its one variant, or `null` when it
 * served more than one, the caller's default, or an error. One pass over those hours; a row seen
 * in an earlier hour is not read again (the verdict depends on the distinct rows only).
 */
function servedVariants(usage: EnvUsage, now: number): Map<string, string | null> {
  const served = new Map<string, string | null>();
  const judged = new Set<string>();
  const hour = Math.floor(now / HOUR);
  for (let h = hour - STALE_RULES.singleValueDays * 24 + 1; h <= hour; h++) {
    const rows = usage.hours.get(h);
    if (!rows) continue;
    for (const row of rows.keys()) {
      if (judged.has(row)) continue;
      judged.add(row);
      const { key, variant, reason } = parseRowKey(row);
      const held = served.get(key);
      if (held === null) continue;
      const one = variant !== null && reason !== 'ERROR' && (held === undefined || held === variant);
      served.set(key, one ? variant : null);
    }
  }
  return served;
}

function servedBy(flag: StoredFlag, variant: string): JsonValue | undefined {
  if (flag.type === 'boolean' || flag.type === 'rollout') return variant === 'on';
  return flag.variants?.[variant];
}

/**
 * The stale rules for flags of `env` at `now`: the returned function answers why a flag is stale,
 * or `null` (also for a flag marked permanent or snoozed). What it reads of the usage (the
 * variants served in the last 7 days) is gathered on first need, once for every flag.
 */
export function staleRules(env: Environment, now: number): (flag: StoredFlag) => StaleFlag | null {
  const usage = env.usage;
  let served: Map<string, string | null> | undefined;
  return (flag) => {
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
    served ??= servedVariants(usage, now);
    const variant = served.get(key) ?? undefined;
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
  };
}

/** `GET /usage/stale`. */
export function staleReport(env: Environment, now: number) {
  const flags: StaleFlag[] = [];
  const staleOf = staleRules(env, now);
  const sorted = [...env.flags.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (const flag of sorted) {
    const stale = staleOf(flag);
    if (stale) flags.push(stale);
  }
  return { at: new Date(now).toISOString(), rules: STALE_RULES, flags };
}
