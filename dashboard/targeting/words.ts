/**
 * Targeting in words (`docs/protocol.md` §12): operators as a person says them ("ends with",
 * "version is at least"), clauses, rules and serves as sentences, percentages of a split, and
 * why a user got what they got. The rule builder, the review before saving, "who gets what" and
 * the history all read targeting through these.
 */
import type { Clause, ClauseOperator, Rule, Serve } from '../../src/core/targeting/types.js';

/** What an operator compares: the kind of values it takes and how many. */
export type ValueKind =
  | 'any'
  | 'text'
  | 'pattern'
  | 'number'
  | 'date'
  | 'version'
  | 'address'
  | 'none'
  | 'segment';

export interface OperatorWords {
  op: ClauseOperator;
  /** "ends with" */
  words: string;
  /** With `negate`: "does not end with" */
  negated: string;
  kind: ValueKind;
  /** Whether "ignore case" applies (`in`, the string operators, `matches`). */
  caseOption: boolean;
}

const o = (op: ClauseOperator, words: string, negated: string, kind: ValueKind, caseOption = false) => ({
  op,
  words,
  negated,
  kind,
  caseOption,
});

/** Every operator, in the order the builder offers them. */
export const OPERATORS: readonly OperatorWords[] = [
  o('in', 'is one of', 'is not one of', 'any', true),
  o('startsWith', 'starts with', 'does not start with', 'text', true),
  o('endsWith', 'ends with', 'does not end with', 'text', true),
  o('contains', 'contains', 'does not contain', 'text', true),
  o('matches', 'matches the pattern', 'does not match the pattern', 'pattern', true),
  o('lessThan', 'is less than', 'is not less than', 'number'),
  o('lessThanOrEqual', 'is at most', 'is not at most', 'number'),
  o('greaterThan', 'is more than', 'is not more than', 'number'),
  o('greaterThanOrEqual', 'is at least', 'is not at least', 'number'),
  o('numberEquals', 'is the number', 'is not the number', 'number'),
  o('before', 'is before', 'is not before', 'date'),
  o('after', 'is after', 'is not after', 'date'),
  o('semVerEqual', 'version is', 'version is not', 'version'),
  o('semVerLessThan', 'version is below', 'version is not below', 'version'),
  o('semVerLessThanOrEqual', 'version is at most', 'version is not at most', 'version'),
  o('semVerGreaterThan', 'version is above', 'version is not above', 'version'),
  o('semVerGreaterThanOrEqual', 'version is at least', 'version is not at least', 'version'),
  o('inCidr', 'is an IP address in', 'is not an IP address in', 'address'),
  o('exists', 'is set', 'is not set', 'none'),
  o('inSegment', 'is in segment', 'is not in segment', 'segment'),
];

export const operatorOf = (op: string): OperatorWords | undefined => OPERATORS.find((w) => w.op === op);

/** A value as a clause shows it: text quoted, anything else as JSON. */
export const valueText = (value: unknown): string =>
  typeof value === 'string' ? `“${value}”` : (JSON.stringify(value) ?? String(value));

/** "a, b or c" */
export function anyOf(items: readonly string[], word = 'or'): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} ${word} ${items[items.length - 1]}`;
}

/** Up to `max` values, then "and N more". */
function valuesText(values: readonly unknown[], max = 5, total = values.length): string {
  const shown = values.slice(0, max).map(valueText);
  const more = total - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${more.toLocaleString()} more` : anyOf(shown);
}

/** `email ends with “@acme.com” (ignoring case)`; `user is in segment beta`. */
export function clauseText(clause: Clause): string {
  const words = operatorOf(clause.op);
  const phrase = words
    ? clause.negate
      ? words.negated
      : words.words
    : `${clause.negate ? 'not ' : ''}${clause.op}`;
  if (clause.op === 'inSegment') return `user ${phrase} ${anyOf(clause.values.map(String))}`;
  const subject = clause.attribute || '(no attribute)';
  // A history entry's long list is a sample with its count (`docs/protocol.md` §12.5).
  const count = (clause as { valuesCount?: number }).valuesCount;
  const values = words?.kind === 'none' ? '' : ` ${valuesText(clause.values, 5, count)}`;
  return `${subject} ${phrase}${values}${clause.caseInsensitive ? ' (ignoring case)' : ''}`;
}

/** "everyone", or every clause joined by "and". */
export const conditionText = (clauses: readonly Clause[]): string =>
  clauses.length === 0 ? 'everyone' : clauses.map(clauseText).join(' and ');

/** Thousandths of a percent as a percentage, to three decimals at most: `33.333 %`. */
export function percentText(weight: number): string {
  return `${Number((weight / 1000).toFixed(3)).toLocaleString(undefined, { maximumFractionDigits: 3 })}\u00a0%`;
}

const bucketText = (by: string | string[] | undefined): string =>
  by === undefined ? 'key' : Array.isArray(by) ? anyOf(by, 'else') : by;

/** `blue`, or `50 % blue, 50 % red (by company)`. */
export function serveText(serve: Serve | undefined): string {
  if (!serve) return '—';
  if ('variant' in serve) return serve.variant;
  const slices = serve.split
    .filter((s) => s.weight > 0)
    .map((s) => `${percentText(s.weight)} ${s.variant ?? '(next rule)'}`);
  return `${slices.join(', ')} (by ${bucketText(serve.bucketBy)})`;
}

/** `if email ends with “@acme.com”, serve blue`. */
export const ruleText = (rule: Pick<Rule, 'clauses'> & { serve?: Serve }): string =>
  rule.serve
    ? `if ${conditionText(rule.clauses)}, serve ${serveText(rule.serve)}`
    : `if ${conditionText(rule.clauses)}`;

/** Why a user got what they got (`docs/protocol.md` §12.4), in words. */
export const REASONS: Record<string, string> = {
  OFF: 'the flag is off: its off variant',
  ON: 'the flag is on and has no targeting',
  ROLLOUT_IN: 'in the rollout percentage',
  ROLLOUT_OUT: 'outside the rollout percentage',
  MISSING_USER_KEY: 'no bucket value (no key or bucket attribute): the off variant',
  PREREQUISITE_FAILED: 'a prerequisite did not serve what it needs: the off variant',
  TARGET_MATCH: 'individually targeted',
  RULE_MATCH: 'a rule matched',
  FALLTHROUGH: 'no target or rule matched: the default rule',
  ERROR: 'the flag cannot be evaluated: the app gets its own default',
};
