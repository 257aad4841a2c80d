/**
 * Usage reads as the server answers them (`docs/protocol.md` §13.7): one shape for the server
 * that answers and the management client and the dashboard that read (the admin API forwards
 * them, `./admin-wire.ts`). Derived from their schemas (`./schemas/usage.ts`); types only.
 */
export type {
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
  UsageOffAnswer,
  UsageRange,
} from './wire/usage.js';
