/**
 * The usage reads the dashboard makes (`docs/protocol.md` §13.7, forwarded by the admin API as
 * `/admin/api/environments/P/E/usage/...`, §10.3) and their shapes, as the server answers them
 * (`src/core/usage-wire.ts`); and usage being off: a server that keeps no usage has no such
 * route, its `404` reads as `null` (the usage parts are then left out, or the usage screens say so).
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

/**
 * A usage read; `null` when the server keeps no usage. With `offOnly`, only the `404` of a route
 * the server does not have means that (an unknown environment's `404` then fails in its own
 * words); otherwise any `404` does, where the screen already says what is missing.
 */
export async function usageRead<T>(path: string, offOnly?: boolean): Promise<T | null> {
  try {
    return await api<T>(path);
  } catch (error) {
    if (
      error instanceof ApiError &&
      error.status === 404 &&
      !(offOnly && !/^no admin route/.test(error.message))
    )
      return null;
    throw error;
  }
}
