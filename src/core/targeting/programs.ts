/**
 * Adds to every `matches` clause of a flag or segment the program its pattern compiles to
 * (`program`, `docs/protocol.md` §12.6), as the server sends them to SDKs with the targeting
 * capability: the SDK runs programs and carries no parser. Used by the server's SDK view and by
 * the test kit, which takes flags as written. Returns `holder` itself when it has no `matches`
 * clause, else a copy: stored flags are never changed. A pattern that does not compile gets no
 * program (the SDK then holds the flag as malformed, as it would the pattern).
 */
import { parse } from '../pattern/parse.js';
import { toWire } from '../pattern/wire.js';
import type { Clause } from './types.js';

const programmed = (clause: Clause): Clause => {
  const { op, values } = clause;
  if (op !== 'matches' || typeof values?.[0] !== 'string') return clause;
  try {
    return { ...clause, program: toWire(parse(values[0], clause.caseInsensitive === true)) } as Clause;
  } catch {
    return clause;
  }
};

export function withPrograms<T extends { rules?: Array<{ clauses: Clause[] }> | undefined }>(holder: T): T {
  const { rules } = holder;
  if (!Array.isArray(rules) || !rules.some((r) => r?.clauses?.some?.((c) => c?.op === 'matches')))
    return holder;
  return {
    ...holder,
    rules: rules.map((rule) => ({ ...rule, clauses: rule.clauses.map(programmed) })),
  };
}
