/**
 * A usage report's body checked whole (`docs/protocol.md` §13.2): the first problem is a `400
 * VALIDATION_ERROR` naming its JSON path, and nothing of the report is counted. Unknown fields are
 * ignored (a newer SDK's report is accepted). Rows of the same key, version, variant and reason
 * are added up, as are repeated unknown keys; unknown keys that are no flag key are only counted,
 * with the report's `unknownDropped`.
 */
import { FLAG_KEY_MAX_LENGTH, FLAG_KEY_PATTERN } from '../../../src/core/limits.js';
import { COUNTED_REASONS, MAX_COUNT_ROWS, MAX_UNKNOWN_KEYS } from '../../../src/core/usage-limits.js';
import { validationError } from '../../errors.js';
import { addCount, type CountRow, type UsageRecord } from './model.js';

/** The reasons a count row may carry (§9, §12.4). */
const REASONS: ReadonlySet<string> = new Set(COUNTED_REASONS);

const STATES = new Set([
  'idle',
  'connecting',
  'connected',
  'reconnecting',
  'polling',
  'stale',
  'failed',
  'closed',
]);

const ID = /^[A-Za-z0-9_-]{16,64}$/;
const SDK_NAME = /^[A-Za-z0-9@/._-]{1,64}$/;
const TOKEN = /^[\x21-\x7e]{1,64}$/;
const VARIANT = /^[A-Za-z0-9_.-]{1,64}$/;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const fail = (path: string, problem: string): never => {
  throw validationError(`${path}: ${problem}`);
};

function object(value: unknown, path: string): Json {
  return isObject(value) ? value : fail(path, 'must be a JSON object');
}

function matching(value: unknown, path: string, pattern: RegExp, what: string): string {
  return typeof value === 'string' && pattern.test(value) ? value : fail(path, `must be ${what}`);
}

function text(value: unknown, path: string, max: number): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > max || CONTROL.test(value))
    fail(path, `must be a string of 1 to ${max} characters without control characters`);
  return value as string;
}

function integer(value: unknown, path: string, min: number): number {
  return Number.isSafeInteger(value) && (value as number) >= min
    ? (value as number)
    : fail(path, `must be an integer from ${min} to ${Number.MAX_SAFE_INTEGER}`);
}

function list(value: unknown, path: string, max: number): unknown[] {
  if (!Array.isArray(value)) fail(path, 'must be an array');
  if ((value as unknown[]).length > max) fail(path, `must hold at most ${max} rows`);
  return value as unknown[];
}

/** The report as it is committed, or a 400 naming the first field that breaks §13.2. */
export function parseUsageReport(body: unknown): UsageRecord {
  const report = object(body, '(body)');
  const id = matching(report.id, 'id', ID, '16 to 64 of [A-Za-z0-9_-]');
  const sdk = object(report.sdk, 'sdk');
  const record: UsageRecord = {
    id,
    sdk: matching(sdk.name, 'sdk.name', SDK_NAME, '1 to 64 of [A-Za-z0-9@/._-]'),
    sdkVersion: matching(sdk.version, 'sdk.version', TOKEN, '1 to 64 printable characters without spaces'),
    runtime: matching(report.runtime, 'runtime', TOKEN, '1 to 64 printable characters without spaces'),
    app: null,
    appVersion: null,
    instance: matching(report.instance, 'instance', ID, '16 to 64 of [A-Za-z0-9_-]'),
    eventId: null,
    state: null,
    counts: [],
    unknown: [],
  };
  if (report.app !== undefined && report.app !== null) {
    const app = object(report.app, 'app');
    record.app = text(app.name, 'app.name', 100);
    if (app.version !== undefined && app.version !== null)
      record.appVersion = text(app.version, 'app.version', 64);
  }
  if (report.eventId !== undefined && report.eventId !== null) {
    const eventId = text(report.eventId, 'eventId', 128);
    if (!/^.+:\d{1,15}$/s.test(eventId)) fail('eventId', 'must be <epoch>:<revision> or null');
    record.eventId = eventId;
  }
  record.state = matching(report.state, 'state', /^[a-z]+$/, 'a client state');
  if (!STATES.has(record.state)) fail('state', `must be one of ${[...STATES].join(', ')}`);
  const window = object(report.window, 'window');
  const start = integer(window.start, 'window.start', 0);
  integer(window.end, 'window.end', start);
  record.counts = countRows(list(report.counts, 'counts', MAX_COUNT_ROWS));
  let unknownDropped = 0;
  if (report.unknown !== undefined) {
    const { keys, dropped } = unknownRows(list(report.unknown, 'unknown', MAX_UNKNOWN_KEYS));
    record.unknown = keys;
    unknownDropped = dropped;
  }
  if (report.unknownDropped !== undefined)
    unknownDropped = addCount(unknownDropped, integer(report.unknownDropped, 'unknownDropped', 0));
  if (unknownDropped > 0) record.unknownDropped = unknownDropped;
  if (report.notReady !== undefined) integer(report.notReady, 'notReady', 0);
  return record;
}

function countRows(rows: unknown[]): CountRow[] {
  const sums = new Map<string, CountRow>();
  rows.forEach((value, i) => {
    const path = `counts[${i}]`;
    const row = object(value, path);
    const key = matching(row.key, `${path}.key`, FLAG_KEY_PATTERN, 'a flag key');
    if (key.length > FLAG_KEY_MAX_LENGTH)
      fail(`${path}.key`, `must be at most ${FLAG_KEY_MAX_LENGTH} characters`);
    const version = integer(row.version, `${path}.version`, 0);
    const variant =
      row.variant === null
        ? null
        : matching(row.variant, `${path}.variant`, VARIANT, 'a variant name or null');
    const reason = row.reason;
    if (typeof reason !== 'string' || !REASONS.has(reason))
      fail(`${path}.reason`, `must be one of ${COUNTED_REASONS.join(', ')}`);
    const count = integer(row.count, `${path}.count`, 1);
    const id = `${key}\t${version}\t${variant}\t${reason}`;
    const held = sums.get(id);
    if (held) held[4] = addCount(held[4], count);
    else sums.set(id, [key, version, variant, reason as string, count]);
  });
  return [...sums.values()];
}

/**
 * The unknown keys that are flag keys (§3.1), added up, and the count of the others: a string the
 * code evaluated as a key that no flag could have (`beta-${email}`) is not kept, only counted.
 */
function unknownRows(rows: unknown[]): { keys: Array<[string, number]>; dropped: number } {
  const sums = new Map<string, number>();
  let dropped = 0;
  rows.forEach((value, i) => {
    const path = `unknown[${i}]`;
    const row = object(value, path);
    const key = row.key;
    if (typeof key !== 'string' || key.length === 0 || key.length > 256)
      fail(`${path}.key`, 'must be a string of 1 to 256 characters');
    const count = integer(row.count, `${path}.count`, 1);
    if ((key as string).length > FLAG_KEY_MAX_LENGTH || !FLAG_KEY_PATTERN.test(key as string))
      dropped = addCount(dropped, count);
    else sums.set(key as string, addCount(sums.get(key as string) ?? 0, count));
  });
  return { keys: [...sums], dropped };
}
