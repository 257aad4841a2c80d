/**
 * The targeting vectors (`test/vectors/targeting/*.json`) through the reference server: each
 * file's segments and flags created through the management API, each case evaluated through
 * OFREP (`docs/protocol.md` §12.7), and the answer compared with the vector mapped to
 * OpenFeature. Flags the server refuses to save (an unknown operator, a dangling segment or
 * prerequisite, a cycle) exist only to test the SDK's `ERROR`: their cases are left out here,
 * and the test checks that nothing else is. A context OFREP does not take (past the bounds of
 * §3.4, e.g. a 64 KiB attribute) must be refused `INVALID_CONTEXT` instead.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CONTEXT_BOUNDS, CONTEXT_BYTES, jsonProblem } from '../src/core/json-limits.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { loadVectors, VECTOR_FILES, type VectorCase, type VectorFile } from './helpers/targeting-vectors.js';

const files = VECTOR_FILES;

const servers: TestServer[] = [];
afterAll(() => Promise.all(servers.map((s) => s.close())));

function contextOf(user: unknown): Record<string, unknown> {
  if (typeof user === 'string') return { targetingKey: user };
  const { key, ...attributes } = (user ?? {}) as Record<string, unknown>;
  return typeof key === 'string' ? { ...attributes, targetingKey: key } : attributes;
}

/** The vector's answer in OFREP's terms. */
function expected(file: VectorFile, c: VectorCase): Record<string, unknown> {
  if (c.reason === 'MISSING_USER_KEY') return { errorCode: 'TARGETING_KEY_MISSING' };
  const flag = file.flags[c.flag]!;
  const split = flag.type === 'rollout' || (flag.fallthrough !== undefined && 'split' in flag.fallthrough);
  const reason = {
    TARGET_MATCH: 'TARGETING_MATCH',
    RULE_MATCH: 'TARGETING_MATCH',
    FALLTHROUGH: split ? 'SPLIT' : 'DEFAULT',
    OFF: 'DISABLED',
    PREREQUISITE_FAILED: 'DISABLED',
    ON: 'STATIC',
    ROLLOUT_IN: 'SPLIT',
    ROLLOUT_OUT: 'SPLIT',
  }[c.reason];
  const out: Record<string, unknown> = { value: c.value, variant: c.variant, reason };
  if (c.reason === 'RULE_MATCH' && !c.anyRule)
    out.metadata = expect.objectContaining({ ruleIndex: c.ruleIndex });
  if (c.reason === 'PREREQUISITE_FAILED')
    out.metadata = expect.objectContaining({ prerequisiteKey: c.prerequisiteKey });
  return out;
}

describe('targeting vectors through OFREP', () => {
  for (const [name, file] of files) {
    it(`${name}: every case the server can hold`, async () => {
      const t = await startTestServer({ config: undefined });
      servers.push(t);
      const refused = await loadVectors(t, file);
      let checked = 0;
      for (const c of file.cases) {
        if (refused.has(c.flag)) {
          expect(c.reason, `${c.why}: only ERROR cases may need a flag the server refuses`).toBe('ERROR');
          continue;
        }
        const res = await fetch(`${t.server.url}/ofrep/v1/evaluate/flags/${c.flag}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${t.fullKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ context: contextOf(c.user) }),
        });
        const got = (await res.json()) as Record<string, unknown>;
        const context = contextOf(c.user);
        const outside =
          jsonProblem(context, CONTEXT_BOUNDS) !== undefined ||
          Buffer.byteLength(JSON.stringify(context)) > CONTEXT_BYTES;
        if (outside) {
          expect(got, c.why).toMatchObject({ errorCode: 'INVALID_CONTEXT' });
          continue;
        }
        expect(got, c.why).toMatchObject(expected(file, c));
        checked += 1;
      }
      expect(checked).toBeGreaterThan(0);
    });
  }
});
