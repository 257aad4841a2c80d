/**
 * Bodies and queries of the admin API (`docs/protocol.md` §10.3), checked through their schemas
 * (`src/core/schemas/admin.ts`) in the service API's words (§3).
 */

import { Type } from '@sinclair/typebox';
import { HistoryLimit, KeyInput, NewApiKeyInput } from '../../src/core/schemas/admin.js';
import { checked, validationError } from '../errors.js';
import type { Access } from '../state/kernel/model.js';

/** `{key}` of a new project or environment: the flag key rules. */
export const validateNewKey = (body: unknown): string => checked(KeyInput, body).key;

/** `{access, name?, bypassApprovals?}` of a new API key: only a `full` key may bypass approvals. */
export function validateNewApiKey(body: unknown): {
  access: Access;
  name: string | null;
  bypassApprovals: boolean;
} {
  const { access, name, bypassApprovals } = checked(NewApiKeyInput, body);
  if (bypassApprovals === true && access !== 'full')
    throw validationError(
      `"bypassApprovals" is for a key of "full" access only (a ${JSON.stringify(access)} key writes nothing)`,
    );
  const trimmed = name?.trim() ?? '';
  return { access, name: trimmed === '' ? null : trimmed, bypassApprovals: bypassApprovals === true };
}

const HistoryQuery = Type.Object({ limit: HistoryLimit });

/** `?flag=KEY&limit=N` of the history. */
export function historyQuery(query: string): { flag: string | undefined; limit: number } {
  const params = new URLSearchParams(query);
  const limit = params.get('limit');
  return {
    flag: params.get('flag') || undefined,
    limit:
      limit === null
        ? (HistoryLimit.default as number)
        : checked(HistoryQuery, { limit: Number(limit) }).limit,
  };
}
