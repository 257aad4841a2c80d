/** How the OpenAPI walk calls the segments routes (`test/helpers/openapi-walk.ts`). */
import type { Recipe, WalkContext } from '../openapi-walk.js';

/** Segment bodies may be 4 MiB (`docs/protocol.md` §3.4). */
const SEGMENT_BODY_BYTES = 4 * 1024 * 1024;

let made = 0;

/** A new segment of its own. */
async function segment(w: WalkContext): Promise<Record<string, string>> {
  const key = `walk-segment-${++made}`;
  const response = await w.call('POST', '/segments', {
    key,
    included: ['u1'],
    rules: [{ clauses: [{ attribute: 'plan', op: 'in', values: ['pro'] }] }],
  });
  if (response.status !== 201)
    throw new Error(`creating ${key}: ${response.status} ${await response.text()}`);
  await response.body?.cancel();
  return { key };
}

/** A version no segment is at. */
const STALE = { 'if-match': '"999999"' };

export const segmentsRecipes: Record<string, Recipe> = {
  'get /segments': { readOnly: true },
  'post /segments': {
    body: {
      key: 'walk-segment',
      description: 'walked',
      included: ['u1', 'u2'],
      excluded: null,
      rules: [
        {
          clauses: [{ attribute: 'email', op: 'endsWith', values: ['@example.com'], caseInsensitive: true }],
        },
      ],
    },
    invalidBody: { key: '-bad' },
    bodyLimit: SEGMENT_BODY_BYTES,
    more: async (w) => [await w.call('POST', '/segments', { key: 'walk-segment' })],
  },
  'get /segments/{key}': { prepare: segment, readOnly: true, missing: { key: 'walk-none' } },
  'patch /segments/{key}': {
    prepare: segment,
    body: { excluded: ['u3'], rules: [] },
    invalidBody: { key: 'renamed' },
    bodyLimit: SEGMENT_BODY_BYTES,
    missing: { key: 'walk-none' },
    more: async (w, { key }) => [await w.call('PATCH', `/segments/${key}`, { description: null }, STALE)],
  },
  'delete /segments/{key}': {
    prepare: segment,
    missing: { key: 'walk-none' },
    more: async (w) => {
      const { key: used } = await segment(w);
      const flag = await w.call('POST', '/flags', {
        key: `walk-uses-${used}`,
        type: 'boolean',
        rules: [{ clauses: [{ op: 'inSegment', values: [used] }], serve: { variant: 'on' } }],
      });
      await flag.body?.cancel();
      const { key: other } = await segment(w);
      return [
        await w.call('DELETE', `/segments/${used}`),
        await w.call('DELETE', `/segments/${other}`, undefined, STALE),
      ];
    },
  },
};
