/**
 * The usage reads the dashboard makes (`docs/protocol.md` §13.7, forwarded by the admin API as
 * `/admin/api/environments/P/E/usage/...`, §10.3), their shapes, and usage being off: a server
 * that keeps no usage answers `404`, which reads as `null` (the usage parts are then left out).
 */
import { ApiError, api } from '../api.js';

export type UsageRange = '24h' | '7d' | '30d' | '90d';
export const RANGES: readonly UsageRange[] = ['24h', '7d', '30d', '90d'];

/** Why a flag is stale, in the server's words (`message`). */
export interface StaleFlag {
  key: string;
  reason: 'UNUSED' | 'NEVER_EVALUATED' | 'SINGLE_VALUE';
  message: string;
}

/** One flag of `GET usage/flags`. */
export interface FlagUsage {
  key: string;
  lastEvaluatedAt: string | null;
  /** The 24 hourly totals up to now, oldest first. */
  last24h: number[];
  stale: StaleFlag | null;
  permanent: boolean;
  snoozedUntil: string | null;
}

/** What one variant served for one reason, one count per step, oldest first. */
export interface UsageSeries {
  variant: string | null;
  value: unknown;
  reason: string;
  points: number[];
}

/** `GET usage/flags/:key?range=`. */
export interface FlagSeries {
  key: string;
  range: UsageRange;
  step: 'hour' | 'day';
  from: string;
  to: string;
  lastEvaluatedAt: string | null;
  total: number;
  series: UsageSeries[];
  apps: Array<{ app: string | null; sdk: string; count: number }>;
}

/** A key evaluated that is not a flag (`GET usage/unknown`). */
export interface UnknownKey {
  key: string;
  count: number;
  lastEvaluatedAt: string;
  deletedAt: string | null;
}

/** A usage read; `null` when the server keeps no usage (`404`). */
export async function usageRead<T>(path: string): Promise<T | null> {
  try {
    return await api<T>(path);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}
