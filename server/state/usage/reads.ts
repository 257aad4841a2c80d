/**
 * Reading an environment's usage (`docs/protocol.md` §13.7): per flag the last evaluation and the
 * last 24 hours, one flag's series over a range, the clients, the unknown keys. Pure functions of
 * the environment and the time `now`; the service runs them as settled reads. Every sum stops at
 * 2^53 - 1 (`addCount`), as the counts it adds do.
 */
import type { JsonValue } from '../../../src/core/targeting/types.js';
import type {
  FlagUsage,
  FlagUsageSeries,
  UnknownKeyUsage,
  UsageClients,
  UsageRange,
} from '../../../src/core/usage-wire.js';
import type { Environment, StoredFlag } from '../kernel/model.js';
import { addCount, DAY, entryOf, HOUR, USAGE_LIMITS, type UsageRows } from './model.js';
import { staleRules } from './stale.js';

export type { UsageRange };

const iso = (ms: number): string => new Date(ms).toISOString();
const isoOrNull = (ms: number | undefined): string | null => (ms === undefined ? null : iso(ms));

/** One pass over the last 24 hours, and one over the last 7 days for the stale rules (`staleRules`). */
export function flagSummaries(env: Environment, now: number): FlagUsage[] {
  const usage = env.usage;
  const hour = Math.floor(now / HOUR);
  const totals = new Map<string, number[]>();
  for (let h = hour - 23; h <= hour; h++) {
    const rows = usage?.hours.get(h);
    if (!rows) continue;
    for (const { key, count } of rows.values()) {
      const points = entryOf(totals, key, () => new Array<number>(24).fill(0));
      points[h - hour + 23] = addCount(points[h - hour + 23]!, count);
    }
  }
  const staleOf = staleRules(env, now);
  return [...env.flags.values()]
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((flag) => {
      const mark = usage?.marks.get(flag.key);
      return {
        key: flag.key,
        lastEvaluatedAt: isoOrNull(usage?.last.get(flag.key)),
        last24h: totals.get(flag.key) ?? new Array<number>(24).fill(0),
        stale: staleOf(flag),
        permanent: mark?.permanent ?? false,
        snoozedUntil: isoOrNull(mark?.snoozedUntil ?? undefined),
      };
    });
}

export const RANGES = {
  '24h': { step: 'hour', points: 24 },
  '7d': { step: 'hour', points: 7 * 24 },
  '30d': { step: 'day', points: 30 },
  '90d': { step: 'day', points: 90 },
} as const satisfies Record<UsageRange, { step: FlagUsageSeries['step']; points: number }>;

/** What a variant serves: `on`/`off` for boolean and rollout flags, else the flag's variant. */
export function servedValueOf(flag: StoredFlag | undefined, variant: string | null): JsonValue | null {
  if (variant === null || !flag) return null;
  if (flag.type === 'boolean' || flag.type === 'rollout') return variant === 'on';
  return flag.variants?.[variant] ?? null;
}

type Line = FlagUsageSeries['series'][number];
type AppCount = FlagUsageSeries['apps'][number];

/** `GET /usage/flags/:key`: the series of one key, or `undefined` when it is neither a flag nor reported. */
export function flagSeries(
  env: Environment,
  key: string,
  range: UsageRange,
  now: number,
): FlagUsageSeries | undefined {
  const flag = env.flags.get(key);
  const usage = env.usage;
  const last = usage?.last.get(key);
  if (!flag && last === undefined) return undefined;
  const { step, points } = RANGES[range];
  const size = step === 'hour' ? HOUR : DAY;
  const end = Math.floor(now / size);
  const first = end - points + 1;
  // Per variant and reason, its line; per app and SDK, its count; each list in the order first met.
  const lines = new Map<string | null, Map<string, Line>>();
  const series: Line[] = [];
  const appCounts = new Map<string | null, Map<string, AppCount>>();
  const apps: AppCount[] = [];
  let total = 0;
  const add = (rows: UsageRows, index: number) => {
    for (const row of rows.values()) {
      if (row.key !== key) continue;
      const { variant, reason, app, sdk, count } = row;
      const byReason = entryOf(lines, variant, () => new Map<string, Line>());
      const line = entryOf(byReason, reason, () => {
        const made = {
          variant,
          value: servedValueOf(flag, variant),
          reason,
          points: new Array<number>(points).fill(0),
        };
        series.push(made);
        return made;
      });
      line.points[index - first] = addCount(line.points[index - first]!, count);
      const bySdk = entryOf(appCounts, app, () => new Map<string, AppCount>());
      const counted = entryOf(bySdk, sdk, () => {
        const made = { app, sdk, count: 0 };
        apps.push(made);
        return made;
      });
      counted.count = addCount(counted.count, count);
      total = addCount(total, count);
    }
  };
  for (const [hour, rows] of usage?.hours ?? []) {
    const index = step === 'hour' ? hour : Math.floor(hour / 24);
    if (index >= first && index <= end) add(rows, index);
  }
  if (step === 'day')
    for (const [day, rows] of usage?.days ?? []) if (day >= first && day <= end) add(rows, day);
  return {
    key,
    range,
    step,
    from: iso(first * size),
    to: iso((end + 1) * size),
    lastEvaluatedAt: isoOrNull(last),
    total,
    // By variant (the default as `null`), then reason.
    series: series.sort((a, b) => {
      const [x, y] = [String(a.variant), String(b.variant)];
      if (x !== y) return x < y ? -1 : 1;
      return a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : 0;
    }),
    apps: apps.sort((a, b) => b.count - a.count),
  };
}

/**
 * `GET /usage/clients`: most recently seen first, with how far behind each is, and `at`, the
 * server's usage clock when read, so a page says "last seen 3 minutes ago" by the server's time.
 */
export function clientList(env: Environment, now: number): UsageClients {
  const clients = [...(env.usage?.clients.values() ?? [])].reverse().map((c) => {
    const match = c.eventId === null ? null : /^(.+):(\d+)$/s.exec(c.eventId);
    const revision = match && match[1] === env.epoch ? Number(match[2]) : null;
    return {
      instance: c.instance,
      sdk: { name: c.sdk, version: c.sdkVersion },
      runtime: c.runtime,
      app: c.app === null ? null : { name: c.app, version: c.appVersion },
      eventId: c.eventId,
      revision,
      behind: revision === null ? null : Math.max(0, env.revision - revision),
      state: c.state,
      // A client that said it closed is not connected, however recently it said so.
      connected: c.state !== 'closed' && now - c.lastSeen <= USAGE_LIMITS.connectedMs,
      firstSeenAt: iso(c.firstSeen),
      lastSeenAt: iso(c.lastSeen),
    };
  });
  return { clients, revision: env.revision, at: iso(now) };
}

/** `GET /usage/unknown`: keys evaluated that are not flags, most evaluated first. */
export function unknownKeys(env: Environment): UnknownKeyUsage[] {
  const usage = env.usage;
  const deletedAt = new Map<string, string>();
  for (const entry of env.history) if (entry.action === 'deleted') deletedAt.set(entry.flag, entry.at);
  return [...(usage?.unknown ?? [])]
    .filter(([key]) => !env.flags.has(key))
    .map(([key, { count, last }]) => ({
      key,
      count,
      lastEvaluatedAt: iso(last),
      deletedAt: deletedAt.get(key) ?? null,
    }))
    .sort((a, b) => b.count - a.count || (a.key < b.key ? -1 : 1));
}
