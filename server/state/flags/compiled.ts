/**
 * Flags and segments compiled for evaluation on the server (OFREP, the dashboard's "who gets
 * what"), by the SDK's own compiler (`src/core/targeting`), once per stored version: a stored
 * flag or segment is never changed in place, so each object is compiled at most once.
 */
import {
  type CompiledFlag,
  type CompiledSegment,
  compileFlag,
  compileSegment,
} from '../../../src/core/targeting/compile.js';
import type { TargetingContext } from '../../../src/core/targeting/evaluate.js';
import { compileMatches } from '../../../src/core/targeting/patterns.js';
import type { Environment, StoredFlag, StoredSegment } from '../kernel/model.js';

const flags = new WeakMap<StoredFlag, CompiledFlag>();
const segments = new WeakMap<StoredSegment, CompiledSegment>();
const contexts = new WeakMap<Environment, TargetingContext>();
/** `matches` patterns: the SDK's linear-time matcher. */
const patterns = compileMatches;

export function compiledFlag(flag: StoredFlag): CompiledFlag {
  let compiled = flags.get(flag);
  if (!compiled) {
    compiled = compileFlag(flag, patterns);
    flags.set(flag, compiled);
  }
  return compiled;
}

/** The environment's flags and segments, compiled as evaluation asks for them. */
export function targetingContext(env: Environment): TargetingContext {
  let context = contexts.get(env);
  if (!context) {
    context = {
      flag: (key) => {
        const flag = env.flags.get(key);
        return flag && compiledFlag(flag);
      },
      segment: (key) => {
        const segment = env.segments.get(key);
        if (!segment) return undefined;
        let compiled = segments.get(segment);
        if (!compiled) {
          compiled = compileSegment(segment, patterns);
          segments.set(segment, compiled);
        }
        return compiled;
      },
    };
    contexts.set(env, context);
  }
  return context;
}
