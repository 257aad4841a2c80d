/**
 * The targeting vectors (`test/vectors/targeting/*.json`) through the reference server: each
 * file's segments and flags created through the management API, each case evaluated through
 * OFREP (`docs/protocol.md` §12.7), and the answer compared with the vector mapped to
 * OpenFeature. Flags the server refuses to save (an unknown operator, a dangling segment or
 * prerequisite, a cycle) exist only to test the SDK's `ERROR`, or a clause without values a flag
 * may hold from before that check: their cases are left out here, and the test checks that
 * nothing else is. A context OFREP does not take (past the bounds of
 * §3.4, e.g. a 64 KiB attribute) must be refused `INVALID_CONTEXT` instead.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CONTEXT_BOUNDS, CONTEXT_BYTES, jsonProblem } from '../../../src/core/json-limits.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import {
  loadVectors,
  VECTOR_FILES,
  type VectorCase,
  type VectorFile,
} from '../../helpers/targeting-vectors.js';

const files = VECTOR_FILES;

const servers: TestServer[] = [];
afterAll(() => Promise.all(servers.map((s) => s.close())));

function contextOf(user: unknown): Record<string, unknown> {
  if (typeof user === 'string') return { targetingKey: user };
  const { key, ...attributes } = (user ?? {}) as Record<string, unknown>;
  return typeof key === 'string' ? { ...attributes, targetingKey: key } : attributes;
}

/**
 * Whether every user gets the flag's one answer (protocol.md §11.2, `STATIC`): enabled, no targets,
 * rules or prerequisites, and a fallthrough on one variant (a rollout at 0 or 100 %, a split with
 * all its weight on one slice), read from the vector's own flag.
 */
function isStatic(flag: VectorFile['flags'][string]): boolean {
  if (!flag.enabled || flag.targets?.length || flag.rules?.length || flag.prerequisites?.length) return false;
  if (flag.type === 'rollout') return !((flag.percentage ?? 0) > 0 && (flag.percentage ?? 0) < 100);
  const { fallthrough } = flag;
  return !fallthrough || 'variant' in fallthrough || fallthrough.split.some((s) => s.weight === 100_000);
}

/**
 * Whether a rule of the flag has a clause without values (not `exists`): refused when saved
 * (§12.2), but a flag stored before that check still evaluates, as the core and SDK runners check.
 */
const withoutValues = (flag: VectorFile['flags'][string]): boolean =>
  flag.rules?.some((r) => r.clauses.some((c) => c.op !== 'exists' && c.values.length === 0)) ?? false;

/** The vector's answer in OFREP's terms. */
function expected(file: VectorFile, c: VectorCase): Record<string, unknown> {
  if (c.reason === 'MISSING_USER_KEY') return { errorCode: 'TARGETING_KEY_MISSING' };
  const flag = file.flags[c.flag]!;
  const split = flag.type === 'rollout' || (flag.fallthrough !== undefined && 'split' in flag.fallthrough);
  if (c.reason !== 'OFF' && isStatic(flag)) return { value: c.value, variant: c.variant, reason: 'STATIC' };
  const reason = {
    TARGET_MATCH: 'TARGETING_MATCH',
    RULE_MATCH: 'TARGETING_MATCH',
    // OFREP has no DEFAULT (§11.2): a fixed fallthrough after targeting is TARGETING_MATCH, marked.
    FALLTHROUGH: split ? 'SPLIT' : 'TARGETING_MATCH',
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
  if (c.reason === 'FALLTHROUGH' && !split) out.metadata = expect.objectContaining({ fallthrough: true });
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
          if (!withoutValues(file.flags[c.flag]!))
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
