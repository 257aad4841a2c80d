/** How the OpenAPI walk calls the usage routes (`test/helpers/openapi-walk.ts`). */
import type { Recipe, WalkContext } from '../openapi-walk.js';
import { postReport, reportBody } from '../usage.js';

let flags = 0;

/** A flag, evaluated once as a report says, and an unknown key reported. */
async function usedFlag(w: WalkContext): Promise<Record<string, string>> {
  const key = `walk-usage-${++flags}`;
  await (await w.call('POST', '/flags', { key, type: 'boolean' })).body?.cancel();
  const body = reportBody({
    counts: [{ key, version: 1, variant: 'off', reason: 'OFF', count: 3 }],
    unknown: [{ key: 'walk-ghost', count: 1 }],
  });
  // The read-only key: a bucket of its own, whatever the walk sends with the full key.
  const answer = await postReport(w.base, w.keys.readOnly, body);
  if (answer.status !== 202) throw new Error(`report: ${answer.status} ${await answer.text()}`);
  return { key };
}

/**
 * `POST /sdk/usage` documents no `429`: reaching it takes more than the key's burst of 1,000
 * reports, each committed (seconds of a walk, more on Postgres), so the walk does not.
 */
export const usageRecipes: Record<string, Recipe> = {
  'post /sdk/usage': {
    readOnly: true,
    body: () =>
      reportBody({ counts: [{ key: 'walk-none', version: 0, variant: null, reason: 'ERROR', count: 1 }] }),
    invalidBody: reportBody({ id: 'short' }),
    bodyLimit: 2 * 1024 * 1024,
  },
  'get /usage/flags': { readOnly: true, prepare: usedFlag },
  'get /usage/flags/{key}': {
    readOnly: true,
    prepare: usedFlag,
    query: 'range=7d',
    invalidQuery: 'range=1y',
    missing: { key: 'walk-never-seen' },
  },
  'patch /usage/flags/{key}': {
    prepare: usedFlag,
    body: { permanent: true, snoozedUntil: null },
    invalidBody: { permanent: 'yes' },
    missing: { key: 'walk-never-seen' },
  },
  'get /usage/clients': { readOnly: true, prepare: usedFlag },
  'get /usage/unknown': { readOnly: true, prepare: usedFlag },
  'get /usage/stale': { readOnly: true },
};
