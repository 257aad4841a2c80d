/**
 * The admin API's wire types (`src/core/admin-wire.ts`, `src/core/usage-wire.ts`) and what the
 * server's state answers: every shape the state builds for an answer is assignable to the wire
 * type the dashboard reads, and the closed lists (sources, access, statuses) are the same lists,
 * so neither side can drift from the other unnoticed. Checked by `tsc` (`npm run typecheck`);
 * the server's admin routes (`server/dashboard/`) are typed with the wire types themselves.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { AdminService, KeyView, ProjectView } from '../../../server/state/admin/admin-service.js';
import type { KeySource } from '../../../server/state/admin/key-ring.js';
import type { CopyPreview, FlagCopy, SegmentCopy } from '../../../server/state/copy/copy-plan.js';
import type { FlagService } from '../../../server/state/flags/flag-service.js';
import type {
  Access,
  Actor,
  HistoryChange,
  HistoryEntry,
  Source,
} from '../../../server/state/kernel/model.js';
import type {
  clientList,
  flagSeries,
  flagSummaries,
  UsageRange,
  unknownKeys,
} from '../../../server/state/usage/reads.js';
import type { staleReport } from '../../../server/state/usage/stale.js';
import type { UsageService } from '../../../server/state/usage/usage-service.js';
import type * as wire from '../../../src/core/admin-wire.js';

describe('the admin wire types cover what the server answers', () => {
  it('projects, environments and keys', () => {
    expectTypeOf<Source>().toEqualTypeOf<wire.EnvSource>();
    expectTypeOf<Access>().toEqualTypeOf<wire.KeyAccess>();
    expectTypeOf<KeySource>().toEqualTypeOf<wire.KeySource>();
    expectTypeOf<KeyView>().toExtend<wire.ApiKeyView>();
    expectTypeOf<Awaited<ReturnType<AdminService['createKey']>>>().toExtend<wire.CreatedApiKey>();
    expectTypeOf<ReturnType<AdminService['listKeys']>>().toExtend<wire.ApiKeyView[]>();
    expectTypeOf<ProjectView & { environments: wire.EnvView[] }>().toExtend<wire.ProjectView>();
  });

  it('history', () => {
    expectTypeOf<Actor>().toEqualTypeOf<wire.Actor>();
    expectTypeOf<HistoryChange>().toEqualTypeOf<wire.HistoryChange>();
    expectTypeOf<HistoryEntry>().toExtend<wire.HistoryEntry>();
    expectTypeOf<Awaited<ReturnType<FlagService['history']>>>().toExtend<wire.HistoryEntry[]>();
  });

  it('copying flags', () => {
    expectTypeOf<FlagCopy>().toExtend<wire.FlagCopy>();
    expectTypeOf<FlagCopy['status']>().toEqualTypeOf<wire.FlagCopy['status']>();
    expectTypeOf<SegmentCopy>().toExtend<wire.SegmentCopy>();
    expectTypeOf<SegmentCopy['status']>().toEqualTypeOf<wire.SegmentCopy['status']>();
    expectTypeOf<CopyPreview>().toExtend<wire.CopyPreview>();
  });

  it('usage reads and stale flags', () => {
    // The state answers the wire's types themselves, declared once (`src/core/usage-wire.ts`).
    expectTypeOf<UsageRange>().toEqualTypeOf<wire.UsageRange>();
    expectTypeOf<ReturnType<typeof flagSummaries>>().toEqualTypeOf<wire.FlagUsage[]>();
    expectTypeOf<ReturnType<typeof flagSeries>>().toEqualTypeOf<wire.FlagUsageSeries | undefined>();
    expectTypeOf<ReturnType<typeof clientList>>().toEqualTypeOf<wire.UsageClients>();
    expectTypeOf<ReturnType<typeof unknownKeys>>().toEqualTypeOf<wire.UnknownKeyUsage[]>();
    expectTypeOf<ReturnType<typeof staleReport>>().toEqualTypeOf<wire.StaleReport>();
    // A series' `from` and `to` are never `null`.
    type Series = NonNullable<ReturnType<typeof flagSeries>>;
    expectTypeOf<Series['from']>().toEqualTypeOf<string>();
    expectTypeOf<Series['to']>().toEqualTypeOf<string>();
    // And so the service's reads, which the routes answer.
    expectTypeOf<Awaited<ReturnType<UsageService['flags']>>>().toEqualTypeOf<wire.FlagUsage[]>();
    expectTypeOf<Awaited<ReturnType<UsageService['flag']>>>().toEqualTypeOf<
      wire.FlagUsageSeries | undefined
    >();
    expectTypeOf<Awaited<ReturnType<UsageService['clients']>>>().toEqualTypeOf<wire.UsageClients>();
    expectTypeOf<Awaited<ReturnType<UsageService['unknown']>>>().toEqualTypeOf<wire.UnknownKeyUsage[]>();
    expectTypeOf<Awaited<ReturnType<UsageService['stale']>>>().toEqualTypeOf<wire.StaleReport>();
  });
});
