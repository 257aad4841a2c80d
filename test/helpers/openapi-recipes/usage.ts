/** How the OpenAPI walk calls the usage routes (`test/helpers/openapi-walk.ts`). */
import type { Recipe } from '../openapi-walk.js';

export const usageRecipes: Record<string, Recipe> = {};
