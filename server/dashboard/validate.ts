/** Bodies of the admin API (`docs/protocol.md` §10.3), checked like the service API's (§3). */
import { flagKeyProblem } from '../../src/core/validation.js';
import { validationError } from '../errors.js';
import type { Access } from '../state/kernel/model.js';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function onlyFields(body: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (!isObject(body)) throw validationError('request body must be a JSON object');
  for (const name of Object.keys(body)) {
    if (!allowed.includes(name)) {
      const shown = name.length > 100 ? `${name.slice(0, 100)}…` : name;
      throw validationError(`unknown field ${JSON.stringify(shown)} (allowed: ${allowed.join(', ')})`);
    }
  }
  return body;
}

/** `{key}` of a new project or environment: the flag key rules. */
export function validateNewKey(body: unknown): string {
  const { key } = onlyFields(body, ['key']);
  const problem = flagKeyProblem(key);
  if (problem) throw validationError(problem);
  return key as string;
}

/** `{access, name?}` of a new API key. */
export function validateNewApiKey(body: unknown): { access: Access; name: string | null } {
  const { access, name } = onlyFields(body, ['access', 'name']);
  if (access !== 'full' && access !== 'read-only' && access !== 'client')
    throw validationError('"access" must be "full", "read-only" or "client"');
  if (name !== undefined && name !== null && (typeof name !== 'string' || name.length > 100)) {
    throw validationError('"name" must be a string of at most 100 characters, or null');
  }
  const trimmed = typeof name === 'string' ? name.trim() : '';
  return { access, name: trimmed === '' ? null : trimmed };
}

/** `?flag=KEY&limit=N` of the history. */
export function historyQuery(query: string): { flag: string | undefined; limit: number } {
  const params = new URLSearchParams(query);
  const flag = params.get('flag') || undefined;
  const limitText = params.get('limit');
  let limit = 200;
  if (limitText !== null) {
    limit = Number(limitText);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
      throw validationError('"limit" must be an integer from 1 to 1000');
    }
  }
  return { flag, limit };
}
