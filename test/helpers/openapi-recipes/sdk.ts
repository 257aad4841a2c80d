/** How the OpenAPI walk calls the SDK routes (`test/helpers/openapi-walk.ts`). */
import type { Recipe } from '../openapi-walk.js';

export const sdkRecipes: Record<string, Recipe> = {
  'get /sdk/flags': {
    readOnly: true,
    more: async (w) => {
      // The snapshot's own ETag: `304`.
      const first = await w.call('GET', '/sdk/flags');
      await first.body?.cancel();
      const notModified = await w.call('GET', '/sdk/flags', undefined, {
        'if-none-match': first.headers.get('etag')!,
      });
      // With the targeting capability: flags with their targeting (a `matches` program), segments.
      await (await w.call('POST', '/segments', { key: 'walk-staff', included: ['ann'] })).body?.cancel();
      const created = await w.call('POST', '/flags', {
        key: 'walk-sdk-banner',
        type: 'string',
        variants: { blue: 'blue', red: 'red' },
        offVariant: 'red',
        fallthrough: { variant: 'red' },
        targets: [{ variant: 'blue', keys: ['bob'] }],
        rules: [
          {
            clauses: [{ attribute: 'email', op: 'matches', values: ['@acme\\.com$'] }],
            serve: { variant: 'blue' },
          },
          { clauses: [{ op: 'inSegment', values: ['walk-staff'] }], serve: { variant: 'blue' } },
        ],
      });
      if (created.status !== 201) throw new Error(`flag: ${created.status} ${await created.text()}`);
      const targeting = await w.call('GET', '/sdk/flags', undefined, {
        'x-flagwire-capabilities': 'targeting',
      });
      return [notModified, targeting];
    },
  },
  'get /sdk/events': { stream: true, readOnly: true },
  'get /sdk/stream': { stream: true, readOnly: true },
};
