/**
 * Reading an environment's usage (`docs/protocol.md` §13.7): per flag the last evaluation and the
 * last 24 hours, one flag's series over a range, the clients, the unknown keys. Pure functions of
 * the environment and the time `now`; the service runs them as settled reads. Every sum stops at
 * 2^53 - 1 (`addCount`), as the counts it adds do.
 */
import type { JsonValue } from '../../../src/core/targeting/types.js';
import type { FlagUsage } from '../../../src/core/usage-wire.js';
import type { Environment, StoredFlag } from '../kernel/model.js';
import { addCount, DAY, type EnvUsage, entryOf, HOUR, parseRowKey, USAGE_LIMITS } from './model.js';
import { staleRules } from './stale.js';

const iso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString());

/** The key of a row (`rowKey`: the key is its first field), without reading the others. */
const keyOfRow = (row: string): string => row.slice(0, row.indexOf('\t'));

/** One pass over the last 24 hours, and one over the last 7 days for the stale rules (`staleRules`). */
export function flagSummaries(env: Environment, now: number): FlagUsage[] {
  const usage = env.usage;
  const hour = Math.floor(now / HOUR);
  const totals = new Map<string, number[]>();
  for (let h = hour - 23; h <= hour; h++) {
    const rows = usage?.hours.get(h);
    if (!rows) continue;
    for (const [row, count] of rows) {
      const points = entryOf(totals, keyOfRow(row), () => new Array<number>(24).fill(0));
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
        lastEvaluatedAt: iso(usage?.last.get(flag.key)),
        last24h: totals.get(flag.key) ?? new Array<number>(24).fill(0),
        stale: staleOf(flag),
        permanent: mark?.permanent ?? false,
        snoozedUntil: iso(mark?.snoozedUntil ?? undefined),
      };
    });
}

export const RANGES = {
  '24h': { step: 'hour', points: 24 },
  '7d': { step: 'hour', points: 7 * 24 },
  '30d': { step: 'day', points: 30 },
  '90d': { step: 'day', points: 90 },
} as const;
export type UsageRange = keyof typeof RANGES;

/** What a variant serves: `on`/`off` for boolean and rollout flags, else the flag's variant. */
export function servedValueOf(flag: StoredFlag | undefined, variant: string | null): JsonValue | null {
  if (variant === null || !flag) return null;
  if (flag.type === 'boolean' || flag.type === 'rollout') return variant === 'on';
  return flag.variants?.[variant] ?? null;
}

/** `GET /usage/flags/:key`: the series of one key, or `undefined` when it is neither a flag nor reported. */
export function flagSeries(env: Environment, key: string, range: UsageRange, now: number) {
  const flag = env.flags.get(key);
  const usage = env.usage;
  const last = usage?.last.get(key);
  if (!flag && last === undefined) return undefined;
  const { step, points } = RANGES[range];
  const size = step === 'hour' ? HOUR : DAY;
  const end = Math.floor(now / size);
  const first = end - points + 1;
  const series = new Map<
    string,
    { variant: string | null; value: JsonValue | null; reason: string; points: number[] }
  >();
  const apps = new Map<string, { app: string | null; sdk: string; count: number }>();
  let total = 0;
  // Rows of other keys are passed over by their first field, never parsed.
  const prefix = `${key}\t`;
  const add = (rows: Map<string, number>, index: number) => {
    for (const [row, count] of rows) {
      if (!row.startsWith(prefix)) continue;
      const fields = parseRowKey(row);
      const id = `${fields.variant}\t${fields.reason}`;
      let line = series.get(id);
      if (!line) {
        const { variant, reason } = fields;
        line = {
          variant,
          value: servedValueOf(flag, variant),
          reason,
          points: new Array<number>(points).fill(0),
        };
        series.set(id, line);
      }
      line.points[index - first] = addCount(line.points[index - first]!, count);
      const appId = `${fields.app}\t${fields.sdk}`;
      const app = apps.get(appId) ?? { app: fields.app, sdk: fields.sdk, count: 0 };
      app.count = addCount(app.count, count);
      apps.set(appId, app);
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
    lastEvaluatedAt: iso(last),
    total,
    series: [...series.values()].sort((a, b) =>
      `${a.variant}\t${a.reason}` < `${b.variant}\t${b.reason}` ? -1 : 1,
    ),
    apps: [...apps.values()].sort((a, b) => b.count - a.count),
  };
}

/**
 * `GET /usage/clients`: most recently seen first, with how far behind each is, and `at`, the
 * server's usage clock when read, so a page says "last seen 3 minutes ago" by the server's time.
 */
export function clientList(env: Environment, now: number) {
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
      firstSeenAt: iso(c.firstSeen)!,
      lastSeenAt: iso(c.lastSeen)!,
    };
  });
  return { clients, revision: env.revision, at: iso(now)! };
}

/** `GET /usage/unknown`: keys evaluated that are not flags, most evaluated first. */
export function unknownKeys(env: Environment) {
  const usage: EnvUsage | undefined = env.usage;
  const deletedAt = new Map<string, string>();
  for (const entry of env.history) if (entry.action === 'deleted') deletedAt.set(entry.flag, entry.at);
  return [...(usage?.unknown ?? [])]
    .filter(([key]) => !env.flags.has(key))
    .map(([key, { count, last }]) => ({
      key,
      count,
      lastEvaluatedAt: iso(last)!,
      deletedAt: deletedAt.get(key) ?? null,
    }))
    .sort((a, b) => b.count - a.count || (a.key < b.key ? -1 : 1));
}
