/**
 * The usage API's bodies checked (`docs/protocol.md` §13): their shape through their schemas
 * (`UsageReport`, `UsageMarkInput`), what no schema says in code.
 *
 * A report is checked whole (§13.2): the first problem is a `400 VALIDATION_ERROR` naming its
 * JSON path (`counts[3].count: must be ...`), and nothing of the report is counted. Unknown fields
 * are ignored (a newer SDK's report is accepted). Rows of the same key, version, variant and
 * reason are added up, as are repeated unknown keys; unknown keys that are no flag key are only
 * counted, with the report's `unknownDropped`.
 */
import type { Static } from '@sinclair/typebox';
import { FLAG_KEY_MAX_LENGTH, FLAG_KEY_PATTERN } from '../../../src/core/limits.js';
import { checkSchema } from '../../../src/core/schemas/check.js';
import { UsageReport } from '../../../src/core/schemas/sdk.js';
import { UsageMarkInput, UsageRange } from '../../../src/core/schemas/usage.js';
import { checked, validationError } from '../../errors.js';
import { addCount, type CountRow, type UsageRecord } from './model.js';

type Report = Static<typeof UsageReport>;

/** The report as it is committed, or a 400 naming the first field that breaks §13.2. */
export function parseUsageReport(body: unknown): UsageRecord {
  // Its shape, or a 400 naming the first field that breaks it (`path: reason`).
  const report = checked(UsageReport, body, 'path', '(body)');
  if (report.window.end < report.window.start)
    throw validationError(
      `window.end: must be an integer from ${report.window.start} to ${Number.MAX_SAFE_INTEGER}`,
    );
  const record: UsageRecord = {
    id: report.id,
    sdk: report.sdk.name,
    sdkVersion: report.sdk.version,
    runtime: report.runtime,
    app: report.app?.name ?? null,
    appVersion: report.app?.version ?? null,
    instance: report.instance,
    eventId: report.eventId ?? null,
    state: report.state,
    counts: countRows(report.counts),
    unknown: [],
  };
  let unknownDropped = 0;
  if (report.unknown) {
    const { keys, dropped } = unknownRows(report.unknown);
    record.unknown = keys;
    unknownDropped = dropped;
  }
  if (report.unknownDropped !== undefined) unknownDropped = addCount(unknownDropped, report.unknownDropped);
  if (unknownDropped > 0) record.unknownDropped = unknownDropped;
  return record;
}

function countRows(rows: Report['counts']): CountRow[] {
  const sums = new Map<string, CountRow>();
  for (const { key, version, variant, reason, count } of rows) {
    const id = `${key}\t${version}\t${variant}\t${reason}`;
    const held = sums.get(id);
    if (held) held[4] = addCount(held[4], count);
    else sums.set(id, [key, version, variant, reason, count]);
  }
  return [...sums.values()];
}

/**
 * The unknown keys that are flag keys (§3.1), added up, and the count of the others: a string the
 * code evaluated as a key that no flag could have (`beta-${email}`) is not kept, only counted.
 */
function unknownRows(rows: NonNullable<Report['unknown']>): {
  keys: Array<[string, number]>;
  dropped: number;
} {
  const sums = new Map<string, number>();
  let dropped = 0;
  for (const { key, count } of rows) {
    if (key.length > FLAG_KEY_MAX_LENGTH || !FLAG_KEY_PATTERN.test(key)) dropped = addCount(dropped, count);
    else sums.set(key, addCount(sums.get(key) ?? 0, count));
  }
  return { keys: [...sums], dropped };
}

/** A mark's patch (`PATCH /usage/flags/:key`), `snoozedUntil` in epoch milliseconds. */
export interface UsageMarkPatch {
  permanent?: boolean;
  snoozedUntil?: number | null;
}

/** `{permanent?, snoozedUntil?}` checked; `snoozedUntil` must be after `now`. */
export function parseUsageMark(body: unknown, now: number): UsageMarkPatch {
  const { permanent, snoozedUntil } = checked(UsageMarkInput, body);
  const patch: UsageMarkPatch = {};
  if (permanent !== undefined) patch.permanent = permanent;
  if (snoozedUntil !== undefined) {
    const at = snoozedUntil === null ? null : Date.parse(snoozedUntil);
    if (at !== null && !(at > now))
      throw validationError('"snoozedUntil" must be a future ISO 8601 date and time, or null');
    patch.snoozedUntil = at;
  }
  return patch;
}

/** `?range=` of `GET /usage/flags/:key`, `24h` when not given. */
export function parseUsageRange(query: string): Static<typeof UsageRange> {
  const range = new URLSearchParams(query).get('range') ?? '24h';
  const result = checkSchema(UsageRange, range);
  if (!result.ok) throw validationError(`range: ${result.message}`);
  return result.value;
}
