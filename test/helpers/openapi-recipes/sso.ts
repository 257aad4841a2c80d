/**
 * How the OpenAPI walk calls the admin API's single sign-on (`docs/protocol.md` §10.6):
 * `GET /sso` needs no credential and answers whether the server offers it (the walk's server
 * does not: `{enabled: false, loginUrl: null}`, which the document's schema holds too).
 */
import type { Recipe } from '../openapi-walk.js';

export const ssoRecipes: Record<string, Recipe> = {
  'get /sso': { readOnly: true },
};
