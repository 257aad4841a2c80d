/** How the OpenAPI walk calls the sdk routes (`test/helpers/openapi-walk.ts`). */
import type { Recipe } from '../openapi-walk.js';

export const sdkRecipes: Record<string, Recipe> = {};
