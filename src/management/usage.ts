/**
 * The management client's usage calls (`docs/protocol.md` §13.7): stale flags for CI, per-flag
 * usage and its series, marks, connected clients and unknown keys. Reads take a full or read-only
 * key; `mark` a full-access key.
 */
import type {
  FlagUsage,
  FlagUsageSeries,
  StaleFlag,
  StaleReason,
  StaleReport,
  UnknownKeyUsage,
  UsageClient,
  UsageClients,
  UsageMarkAnswer,
  UsageMarkInput,
  UsageRange,
} from '../core/usage-wire.js';
import { type CallOptions, call, type RequestSettings } from './request.js';

export type {
  FlagUsage,
  FlagUsageSeries,
  StaleFlag,
  StaleReason,
  StaleReport,
  UnknownKeyUsage,
  UsageClient,
  UsageMarkInput,
  UsageRange,
};

export interface UsageCalls {
  /** Stale flags, for CI: fail a build when `flags` is not empty. */
  stale(options?: CallOptions): Promise<StaleReport>;
  flags(options?: CallOptions): Promise<FlagUsage[]>;
  flag(key: string, options?: CallOptions & { range?: UsageRange }): Promise<FlagUsageSeries>;
  mark(key: string, mark: UsageMarkInput, options?: CallOptions): Promise<UsageMarkAnswer>;
  /** The clients, most recently seen first; `revision` the environment's now, `at` the server's time of the read. */
  clients(options?: CallOptions): Promise<UsageClients>;
  unknown(options?: CallOptions): Promise<UnknownKeyUsage[]>;
}

export function usageCalls(settings: RequestSettings): UsageCalls {
  const get = <T>(path: string, o?: CallOptions) => call<T>(settings, 'GET', path, undefined, o);
  const segment = (value: string) => encodeURIComponent(value);
  return {
    stale: (o) => get('/usage/stale', o),
    flags: (o) => get('/usage/flags', o),
    flag: (key, o) => get(`/usage/flags/${segment(key)}?range=${o?.range ?? '24h'}`, o),
    mark: (key, mark, o) => call(settings, 'PATCH', `/usage/flags/${segment(key)}`, mark, o),
    clients: (o) => get('/usage/clients', o),
    unknown: (o) => get('/usage/unknown', o),
  };
}
