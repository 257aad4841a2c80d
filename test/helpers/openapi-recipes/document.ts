/** How the OpenAPI walk calls the document's own route. */
import type { Recipe } from '../openapi-walk.js';

export const documentRecipes: Record<string, Recipe> = {
  'get /openapi.json': {
    readOnly: true,
    more: async (w) => {
      const first = await fetch(`${w.base}/openapi.json`);
      await first.body?.cancel();
      return [
        await fetch(`${w.base}/openapi.json`, { headers: { 'if-none-match': first.headers.get('etag')! } }),
      ];
    },
  },
};
