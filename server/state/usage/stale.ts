/**
 * Stale flags (`docs/protocol.md` §13.7), first match: `UNUSED` (last evaluated more than 30 days
 * ago), `NEVER_EVALUATED` (never evaluated in the more than 7 days since the later of its creation
 * and the start of the environment's usage), `SINGLE_VALUE` (its configuration unchanged for more
 * than 7 days, and every evaluation of the last 7 days served one variant, none of them the
 * caller's default, usage kept for more than those 7 days): with the value to hard-code. A flag marked `permanent`, or snoozed until
 * after `now`, is never stale; nor is one another flag lists as a prerequisite (it is in use, and
 * deleting it is refused). What the rules read of the usage is gathered once per read, in one
 * pass over the hours, however many flags there are.
 */
import type { JsonValue } from '../../../src/core/targeting/types.js';
import type { StaleFlag, StaleReport } from '../../../src/core/usage-wire.js';
import type { Environment, StoredFlag } from '../kernel/model.js';
import { DAY, type EnvUsage, HOUR } from './model.js';

export const STALE_RULES = { unusedDays: 30, neverEvaluatedDays: 7, singleValueDays: 7 } as const;

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
    for (const [id, { key, variant, reason }] of rows) {
      if (judged.has(id)) continue;
      judged.add(id);
      const held = served.get(key);
      if (held === null) continue;
      const one = variant !== null && reason !== 'ERROR' && (held === undefined || held === variant);
      served.set(key, one ? variant : null);
    }
  }
  return served;
}

/**
 * When the environment started keeping usage, as far as what it keeps tells: the start of its
 * oldest hour or day of counts, or its oldest last-evaluated time, unknown key or client;
 * `undefined` when it keeps none of these (no report was ever counted, or only marks were set).
 * (Usage keeps no time of its own for this: a `since` recorded with the first op would be exact.)
 */
export function usageSince(usage: EnvUsage | undefined): number | undefined {
  if (!usage) return undefined;
  let since = Number.POSITIVE_INFINITY;
  for (const hour of usage.hours.keys()) since = Math.min(since, hour * HOUR);
  for (const day of usage.days.keys()) since = Math.min(since, day * DAY);
  for (const at of usage.last.values()) since = Math.min(since, at);
  for (const entry of usage.unknown.values()) since = Math.min(since, entry.last);
  for (const client of usage.clients.values()) since = Math.min(since, client.firstSeen);
  return Number.isFinite(since) ? since : undefined;
}

function servedBy(flag: StoredFlag, variant: string): JsonValue | undefined {
  if (flag.type === 'boolean' || flag.type === 'rollout') return variant === 'on';
  return flag.variants?.[variant];
}

/** The keys other flags of `env` list as a prerequisite: flags in use, whatever their own usage. */
function prerequisiteKeys(env: Environment): Set<string> {
  const keys = new Set<string>();
  for (const flag of env.flags.values())
    for (const p of flag.prerequisites ?? []) if (p.flag !== flag.key) keys.add(p.flag);
  return keys;
}

/**
 * The stale rules for flags of `env` at `now`: the returned function answers why a flag is stale,
 * or `null` (also for a flag marked permanent or snoozed, or another flag's prerequisite). What it
 * reads of the environment (the prerequisites, the variants served, when usage started) is
 * gathered on first need, once for every flag.
 */
export function staleRules(env: Environment, now: number): (flag: StoredFlag) => StaleFlag | null {
  const usage = env.usage;
  let served: Map<string, string | null> | undefined;
  let since: number | null | undefined;
  let required: Set<string> | undefined;
  return (flag) => {
    const mark = usage?.marks.get(flag.key);
    if (mark?.permanent || (mark?.snoozedUntil ?? 0) > now) return null;
    required ??= prerequisiteKeys(env);
    if (required.has(flag.key)) return null;
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
      // Never evaluated since the later of its creation and the start of usage: before that, no
      // evaluation could have been counted (an upgrade does not make every old flag stale).
      if (since === undefined) since = usageSince(usage) ?? null;
      if (since === null) return null;
      // `since` is known to the hour (or day) it falls in: a flag created within the hour before
      // counts from its creation.
      const fromCreation = created >= since - HOUR;
      const from = fromCreation ? created : since;
      if (!(now - from > STALE_RULES.neverEvaluatedDays * DAY)) return null;
      return {
        key,
        reason: 'NEVER_EVALUATED',
        createdAt: flag.createdAt,
        message: fromCreation
          ? `never evaluated, created ${days(now - created)} days ago`
          : `never evaluated since usage was first kept, ${days(now - since)} days ago`,
      };
    }
    const unchanged = now - Date.parse(flag.updatedAt);
    if (!(unchanged > STALE_RULES.singleValueDays * DAY) || !usage) return null;
    // "Only one value for 7 days" needs 7 days of usage kept: on an upgrade's first day, one
    // report must not tell a team to hard-code a flag.
    if (since === undefined) since = usageSince(usage) ?? null;
    if (since === null || !(now - since > STALE_RULES.singleValueDays * DAY)) return null;
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
export function staleReport(env: Environment, now: number): StaleReport {
  const flags: StaleFlag[] = [];
  const staleOf = staleRules(env, now);
  const sorted = [...env.flags.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (const flag of sorted) {
    const stale = staleOf(flag);
    if (stale) flags.push(stale);
  }
  return { at: new Date(now).toISOString(), rules: STALE_RULES, flags };
}
