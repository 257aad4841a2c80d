/**
 * The targeting vectors (`test/vectors/targeting/*.json`, `docs/protocol.md` §12) through the SDK's
 * public interface: `getDetail` of the in-memory test client (`flagwire/testing`, given the file's
 * flags and segments), and of a real client that loaded them from the reference server with the
 * targeting capability (the flags the server refuses to save exist only for the SDK's `ERROR`
 * cases: those run through the test client only).
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Flag, FlagDetail, FlagwireClient, JsonValue } from '../../../src/index.js';
import { createClient } from '../../../src/index.js';
import { createTestClient } from '../../../src/testing/index.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import {
  loadVectors,
  VECTOR_FILES,
  type VectorCase,
  type VectorFile,
} from '../../helpers/targeting-vectors.js';

const servers: TestServer[] = [];
const clients: FlagwireClient[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all(servers.map((s) => s.close()));
});

/** A default of the flag's kind (the case's own for `ERROR` cases). */
function defaultOf(file: VectorFile, c: VectorCase): JsonValue {
  if (c.default !== undefined) return c.default as JsonValue;
  const type = file.flags[c.flag]!.type;
  return type === 'string' ? '' : type === 'number' ? 0 : type === 'json' ? null : false;
}

/** What the case says, in `getDetail`'s terms. */
function expected(c: VectorCase): Record<string, unknown> {
  const { flag: _f, user: _u, why: _w, default: _d, anyRule, ...rest } = c;
  if (anyRule) {
    delete rest.ruleIndex;
    delete rest.ruleId;
  }
  return rest;
}

/** The fields of `detail` a case can name. */
function pick(detail: FlagDetail<unknown>, c: VectorCase): Record<string, unknown> {
  const got: Record<string, unknown> = { value: detail.value, reason: detail.reason };
  for (const field of ['variant', 'prerequisiteKey', 'bucket'] as const)
    if (detail[field] !== undefined) got[field] = detail[field];
  if (detail.reason === 'RULE_MATCH' && !c.anyRule)
    Object.assign(got, { ruleIndex: detail.ruleIndex, ruleId: detail.ruleId });
  return got;
}

/** The file's flags as the management representation names them (salted by their own key). */
function flagsOf(file: VectorFile): Flag[] {
  return Object.entries(file.flags).map(
    ([key, flag]) =>
      ({
        ...flag,
        key,
        description: null,
        ...(key !== flag.key ? { salt: flag.salt ?? flag.key } : {}),
      }) as Flag,
  );
}

describe('targeting vectors through the test client (flagwire/testing)', () => {
  for (const [name, file] of VECTOR_FILES) {
    it(`${name}: every case`, () => {
      const client = createTestClient({ flags: flagsOf(file), segments: Object.values(file.segments) });
      for (const c of file.cases)
        expect(pick(client.getDetail(c.flag, c.user, defaultOf(file, c)), c), c.why).toEqual(expected(c));
    });
  }
});

describe('targeting vectors through a client that loaded them from the server', () => {
  for (const [name, file] of VECTOR_FILES) {
    it(`${name}: every case the server can hold`, async () => {
      const t = await startTestServer({ config: undefined });
      servers.push(t);
      const refused = await loadVectors(t, file);
      const client = createClient({ baseUrl: t.base, apiKey: t.fullKey, stream: false, logger: false });
      clients.push(client);
      await client.ready({ timeoutMs: 10_000 });
      let checked = 0;
      for (const c of file.cases) {
        if (refused.has(c.flag)) continue;
        expect(pick(client.getDetail(c.flag, c.user, defaultOf(file, c)), c), c.why).toEqual(expected(c));
        checked += 1;
      }
      expect(checked).toBeGreaterThan(0);
    });
  }
});
