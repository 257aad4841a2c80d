/** How the OpenAPI walk calls the flags routes (`test/helpers/openapi-walk.ts`). */
import type { Recipe } from '../openapi-walk.js';

export const flagsRecipes: Record<string, Recipe> = {};
