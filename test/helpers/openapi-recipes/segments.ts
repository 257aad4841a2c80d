/** How the OpenAPI walk calls the segments routes (`test/helpers/openapi-walk.ts`). */
import type { Recipe } from '../openapi-walk.js';

export const segmentsRecipes: Record<string, Recipe> = {};
