/** Usage reports as an SDK sends them (`docs/protocol.md` §13.2), for the usage tests. */
import { randomBytes } from 'node:crypto';

export interface ReportBody {
  id: string;
  sdk: { name: string; version: string };
  runtime: string;
  app?: { name: string; version?: string } | null;
  instance: string;
  eventId: string | null;
  state: string;
  window: { start: number; end: number };
  counts: Array<{ key: string; version: number; variant: string | null; reason: string; count: number }>;
  unknown?: Array<{ key: string; count: number }>;
  [field: string]: unknown;
}

export const randomId = (prefix = 'u_'): string => `${prefix}${randomBytes(16).toString('base64url')}`;

/** A valid report (an instance of its own unless given), changed by `fields`. */
export function reportBody(fields: Partial<ReportBody> = {}): ReportBody {
  return {
    id: randomId(),
    sdk: { name: 'flagwire-js', version: '0.1.0' },
    runtime: 'node/20.0.0',
    app: { name: 'checkout', version: '1.0.0' },
    instance: randomId('i_'),
    eventId: null,
    state: 'connected',
    window: { start: 1, end: 2 },
    counts: [],
    ...fields,
  };
}

/** POSTs `body` (an object, or raw text) to `${base}/sdk/usage` with `key`. */
export function postReport(base: string, key: string, body: unknown): Promise<Response> {
  return fetch(`${base}/sdk/usage`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** The sum of `count` per variant of `key` over a range (`GET /usage/flags/:key`). */
export async function totalsOf(
  base: string,
  key: string,
  apiKey: string,
  range = '24h',
): Promise<{ total: number; byVariant: Record<string, number>; lastEvaluatedAt: string | null }> {
  const response = await fetch(`${base}/usage/flags/${encodeURIComponent(key)}?range=${range}`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  if (response.status === 404) return { total: 0, byVariant: {}, lastEvaluatedAt: null };
  if (response.status !== 200)
    throw new Error(`usage of ${key}: ${response.status} ${await response.text()}`);
  const body = (await response.json()) as {
    total: number;
    lastEvaluatedAt: string | null;
    series: Array<{ variant: string | null; reason: string; points: number[] }>;
  };
  const byVariant: Record<string, number> = {};
  for (const line of body.series) {
    const name = `${line.variant}/${line.reason}`;
    byVariant[name] = (byVariant[name] ?? 0) + line.points.reduce((a, b) => a + b, 0);
  }
  return { total: body.total, byVariant, lastEvaluatedAt: body.lastEvaluatedAt };
}
