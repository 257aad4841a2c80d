/**
 * The targeting conformance vectors (`test/vectors/targeting/*.json`, `docs/protocol.md` §12),
 * run by the one evaluator in `src/core/targeting`. Each file holds flags and segments in their
 * wire form and cases: a user, the flag, and the value, variant and reason (with `ruleIndex`,
 * `ruleId`, `prerequisiteKey`, `bucket` where they apply) the user must get; `ERROR` cases give
 * the case's `default`. Split expectations were computed by an independent murmur3.
 */
import { describe, expect, it } from 'vitest';
import {
  type CompiledFlag,
  type CompiledSegment,
  compileFlag,
  compileSegment,
} from '../../../src/core/targeting/compile.js';
import { evaluateVariant, lastOutcome, type TargetingContext } from '../../../src/core/targeting/evaluate.js';
import { compileMatches } from '../../../src/core/targeting/patterns.js';
import { CLAUSE_OPERATORS } from '../../../src/core/targeting/types.js';
import { VECTOR_FILES, type VectorCase, type VectorFile } from '../../helpers/targeting-vectors.js';

const files = VECTOR_FILES;

/** What the core evaluator answers for a case: value, variant and the outcome's details. */
function evaluateCase(file: VectorFile, c: VectorCase): Record<string, unknown> {
  const flags = new Map<string, CompiledFlag>();
  const segments = new Map<string, CompiledSegment>();
  for (const [key, flag] of Object.entries(file.flags)) flags.set(key, compileFlag(flag, compileMatches));
  for (const [key, segment] of Object.entries(file.segments))
    segments.set(key, compileSegment(segment, compileMatches));
  const context: TargetingContext = { flag: (key) => flags.get(key), segment: (key) => segments.get(key) };
  const flag = flags.get(c.flag)!;
  const index = evaluateVariant(flag, c.user, context);
  const got: Record<string, unknown> = {
    value: index < 0 ? c.default : flag.values[index],
    reason: lastOutcome.reason,
  };
  if (index >= 0) got.variant = flag.names[index];
  if (lastOutcome.reason === 'RULE_MATCH' && !c.anyRule)
    Object.assign(got, { ruleIndex: lastOutcome.ruleIndex, ruleId: lastOutcome.ruleId });
  if (lastOutcome.reason === 'PREREQUISITE_FAILED') got.prerequisiteKey = lastOutcome.prerequisiteKey;
  if (lastOutcome.bucket > 0) got.bucket = lastOutcome.bucket;
  return got;
}

function expected(c: VectorCase): Record<string, unknown> {
  const { flag: _flag, user: _user, why: _why, default: _default, anyRule: _any, ...rest } = c;
  return rest;
}

describe('targeting vectors, core evaluator', () => {
  it('has vectors for every operator of the contract', () => {
    const ops = new Set<string>();
    for (const [, file] of files)
      for (const flag of Object.values(file.flags))
        for (const rule of flag.rules ?? []) for (const clause of rule.clauses) ops.add(clause.op);
    for (const op of CLAUSE_OPERATORS) expect(ops, op).toContain(op);
  });

  for (const [name, file] of files) {
    describe(name, () => {
      it.each(file.cases.map((c, i) => [`${i}: ${c.flag}, ${c.why}`, c] as const))('%s', (_title, c) => {
        expect(evaluateCase(file, c)).toEqual(expected(c));
      });
    });
  }
});
