/**
 * How the OpenAPI walk calls the audit log (`GET /admin/api/audit`, `docs/protocol.md` §10.6):
 * filtered and counted; a count past the JSON answer's bound is refused (`400`).
 */
import type { Recipe } from '../openapi-walk.js';

export const auditRecipes: Record<string, Recipe> = {
  'get /audit': { query: 'project=acme&limit=5', invalidQuery: 'limit=0' },
};
