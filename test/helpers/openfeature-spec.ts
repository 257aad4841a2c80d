/**
 * The OpenFeature specification's Gherkin suite (`specification/assets/gherkin` of
 * open-feature/spec, vendored unchanged in test/fixtures/openfeature-spec): its scenarios, one
 * pickle per example row (`@cucumber/gherkin`), and its flags (`test-flags.json`, in the
 * in-memory provider's format) as Flagwire flags, created through the management API.
 */
import { readFileSync } from 'node:fs';
import { AstBuilder, compile, GherkinClassicTokenMatcher, Parser } from '@cucumber/gherkin';
import { IdGenerator, type Pickle } from '@cucumber/messages';
import type { TestServer } from './server.js';

const DIR = new URL('../fixtures/openfeature-spec/', import.meta.url);

function vendored(name: string): string {
  try {
    return readFileSync(new URL(name, DIR), 'utf8');
  } catch {
    throw new Error(
      `test/fixtures/openfeature-spec/${name} is missing: place open-feature/spec's specification/assets/gherkin/${name} there, unchanged (test/fixtures/openfeature-spec/README.md)`,
    );
  }
}

/** The scenarios of `evaluation_v2.feature`, an example row each. */
export function loadPickles(): readonly Pickle[] {
  const newId = IdGenerator.uuid();
  const document = new Parser(new AstBuilder(newId), new GherkinClassicTokenMatcher()).parse(
    vendored('evaluation_v2.feature'),
  );
  return compile(document, 'evaluation_v2.feature', newId);
}

/** A flag of `test-flags.json`, as the in-memory provider takes it. */
interface SpecFlag {
  variants: Record<string, unknown>;
  defaultVariant?: string | null;
  disabled?: boolean;
  contextEvaluator?: string;
  flagMetadata?: Record<string, unknown> | null;
}

type Rule = { clauses: Array<Record<string, unknown>>; serve: { variant: string } };

/**
 * One term of a `contextEvaluator` as the clauses it takes: `attr == 'x'`, `attr > n`, or `!attr`
 * (missing, `null`, `false`, `0` or `''`: two alternatives, as JavaScript's falsy is an or).
 */
function termOf(term: string): Array<Array<Record<string, unknown>>> {
  const equals = /^(\w+) == '([^']*)'$/.exec(term);
  if (equals) return [[{ attribute: equals[1], op: 'in', values: [equals[2]] }]];
  const greater = /^(\w+) > (-?\d+(?:\.\d+)?)$/.exec(term);
  if (greater) return [[{ attribute: greater[1], op: 'greaterThan', values: [Number(greater[2])] }]];
  const falsy = /^!(\w+)$/.exec(term);
  if (falsy)
    return [
      [{ attribute: falsy[1], op: 'exists', negate: true }],
      [{ attribute: falsy[1], op: 'in', values: [false, 0, ''] }],
    ];
  throw new Error(`a contextEvaluator term this translation does not know: ${term}`);
}

/**
 * A `contextEvaluator` (a JavaScript expression of the in-memory provider's tests) as rules:
 * `<term> && <term> ... ? 'variant' : ''`, each term as `termOf` reads it; `''` means the default
 * variant, Flagwire's fallthrough. A term with alternatives (`!attr`) makes one rule per
 * alternative, each with the other terms' clauses. Any other form throws, so a new one is seen.
 */
function rulesOf(expression: string, name: (variant: string) => string): Rule[] {
  const form = /^(.+) \? '([^']+)' : ''$/.exec(expression);
  if (!form) throw new Error(`a contextEvaluator this translation does not know: ${expression}`);
  const serve = { variant: name(form[2]!) };
  let alternatives: Array<Array<Record<string, unknown>>> = [[]];
  for (const term of form[1]!.split(' && ')) {
    const options = termOf(term.trim());
    alternatives = alternatives.flatMap((clauses) => options.map((more) => [...clauses, ...more]));
  }
  return alternatives.map((clauses) => ({ clauses, serve }));
}

/** Why a flag of the file has no Flagwire counterpart, by key. */
export type Untranslated = Record<string, string>;

/**
 * Creates the file's flags on `t` and answers those it could not translate, with why. Booleans
 * become `boolean` flags (variants `on`/`off` by value: the file's names are not kept for them),
 * numbers `number`, strings `string`, objects `json`; the default variant becomes the
 * fallthrough; `disabled` leaves the flag off (it then serves its off variant, the first);
 * `flagMetadata` has no Flagwire counterpart and is dropped.
 */
export async function loadSpecFlags(t: TestServer): Promise<Untranslated> {
  const file = JSON.parse(vendored('test-flags.json')) as Record<string, SpecFlag>;
  const untranslated: Untranslated = {};
  for (const [key, flag] of Object.entries(file)) {
    if (flag.defaultVariant === undefined || flag.defaultVariant === null) {
      untranslated[key] =
        'no default variant: the in-memory provider then answers the code default, a Flagwire flag always serves a variant';
      continue;
    }
    const values = Object.values(flag.variants);
    const all = (type: string) => values.every((v) => typeof v === type && v !== null && !Array.isArray(v));
    const binary = all('boolean');
    const name = (variant: string) => (binary ? (flag.variants[variant] ? 'on' : 'off') : variant);
    const type = binary ? 'boolean' : all('number') ? 'number' : all('string') ? 'string' : 'json';
    const body: Record<string, unknown> = { key, type, fallthrough: { variant: name(flag.defaultVariant) } };
    if (!binary) body.variants = flag.variants;
    if (flag.contextEvaluator) body.rules = rulesOf(flag.contextEvaluator, name);
    const made = await t.api('POST', '/flags', body);
    if (made.status !== 201) throw new Error(`${key}: ${made.status} ${await made.text()}`);
    if (!flag.disabled) {
      const on = await t.api('PATCH', `/flags/${key}`, { enabled: true });
      if (on.status !== 200) throw new Error(`${key}: ${on.status} ${await on.text()}`);
    }
  }
  return untranslated;
}
