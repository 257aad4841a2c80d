/** How the OpenAPI walk calls the flags routes (`test/helpers/openapi-walk.ts`). */
import type { Recipe, WalkContext } from '../openapi-walk.js';

let made = 0;

/** A new flag of its own (a string flag with targeting unless `body` says otherwise). */
async function flag(w: WalkContext, body: Record<string, unknown> = {}): Promise<Record<string, string>> {
  const key = `walk-flag-${++made}`;
  const response = await w.call('POST', '/flags', {
    key,
    type: 'string',
    variants: { red: '#f00', blue: '#00f' },
    targets: [{ variant: 'blue', keys: ['vip'] }],
    ...body,
  });
  if (response.status !== 201)
    throw new Error(`creating ${key}: ${response.status} ${await response.text()}`);
  await response.body?.cancel();
  return { key };
}

/** A version no flag is at. */
const STALE = { 'if-match': '"999999"' };

export const flagsRecipes: Record<string, Recipe> = {
  'get /flags': { readOnly: true },
  'post /flags': {
    body: {
      key: 'walk-created',
      type: 'number',
      variants: { low: 1, high: 2 },
      fallthrough: {
        split: [
          { variant: 'low', weight: 60_000 },
          { variant: 'high', weight: 40_000 },
        ],
      },
      rules: [{ clauses: [{ attribute: 'country', op: 'in', values: ['fr'] }], serve: { variant: 'high' } }],
    },
    invalidBody: { key: 'walk-bad', type: 'text' },
    more: async (w) => [await w.call('POST', '/flags', { key: 'walk-created', type: 'boolean' })],
  },
  'get /flags/{key}': { prepare: (w) => flag(w), readOnly: true, missing: { key: 'walk-none' } },
  'patch /flags/{key}': {
    prepare: (w) => flag(w),
    body: { enabled: true, description: 'walked', rules: [{ clauses: [], serve: { variant: 'red' } }] },
    invalidBody: { type: 'rollout' },
    missing: { key: 'walk-none' },
    more: async (w, { key }) => [
      await w.call('PATCH', `/flags/${key}`, { enabled: false }, STALE),
      // `blue` serves the targets: removing it is a conflict.
      await w.call('PATCH', `/flags/${key}`, { variants: { red: '#f00' } }),
    ],
  },
  'delete /flags/{key}': {
    prepare: (w) => flag(w),
    missing: { key: 'walk-none' },
    more: async (w) => {
      const { key: first } = await flag(w, { type: 'boolean', variants: undefined, targets: undefined });
      await flag(w, {
        type: 'boolean',
        variants: undefined,
        targets: undefined,
        prerequisites: [{ flag: first, variants: ['on'] }],
      });
      const { key: other } = await flag(w);
      return [
        await w.call('DELETE', `/flags/${first}`),
        await w.call('DELETE', `/flags/${other}`, undefined, STALE),
      ];
    },
  },
};
