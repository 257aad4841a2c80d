/**
 * The usage reads the dashboard makes (`docs/protocol.md` §13.7, forwarded by the admin API as
 * `/admin/api/environments/P/E/usage/...`, §10.3) and their shapes, as the server answers them
 * (`src/core/usage-wire.ts`); and usage being off: a server that keeps no usage answers every
 * usage path `404` with `usage: false` in its body (§13.1), read as `null` (the usage parts are
 * then left out, or the usage screens say so).
 */
import type {
  FlagUsage,
  FlagUsageSeries,
  StaleFlag,
  StaleReport,
  UnknownKeyUsage,
  UsageClient,
  UsageClients,
  UsageRange,
} from '../../src/core/admin-wire.js';
import type { UsageOffAnswer } from '../../src/core/usage-wire.js';
import { ApiError, api } from '../api.js';

export type { FlagUsage, StaleFlag, UsageClient, UsageRange };
export const RANGES: readonly UsageRange[] = ['24h', '7d', '30d', '90d'];

/** `GET usage/flags/:key?range=`. */
export type FlagSeries = FlagUsageSeries;
/** What one variant served for one reason, one count per step, oldest first. */
export type UsageSeries = FlagSeries['series'][number];
/** `GET usage/clients`, with `at`: the server's clock when read. */
export type ClientsAnswer = UsageClients;
/** A key evaluated that is not a flag (`GET usage/unknown`). */
export type UnknownKey = UnknownKeyUsage;
/** `GET usage/stale`. */
export type StaleAnswer = StaleReport;

/** Whether `error` is the server saying it keeps no usage: a `404` whose body says `usage: false`. */
export function isUsageOff(error: unknown): boolean {
  return (
    error instanceof ApiError &&
    error.status === 404 &&
    (error.body as Partial<UsageOffAnswer> | undefined)?.usage === false
  );
}

/**
 * A usage read; `null` when the server keeps no usage (`isUsageOff`). Without `offOnly`, any
 * other `404` reads as `null` too, where the screen already says what is missing; with it, such
 * a `404` (an unknown environment's) fails in its own words.
 */
export async function usageRead<T>(path: string, offOnly?: boolean): Promise<T | null> {
  try {
    return await api<T>(path);
  } catch (error) {
    if (isUsageOff(error) || (!offOnly && error instanceof ApiError && error.status === 404)) return null;
    throw error;
  }
}
