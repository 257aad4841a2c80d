/**
 * The file `flagwire types` writes: the `FlagwireFlags` augmentation (one entry per flag key,
 * with JSDoc saying where it exists, its type, variants and description) and `FLAG_KEYS`.
 * Deterministic: keys, variants and shapes sorted, no time, no address, so the file diffs cleanly
 * in review and `--check` compares it byte for byte. Only what a change of code would follow is
 * in it: a flag's type, variants and description, never whether it is on or its percentage.
 */
import type { Flag, JsonValue } from '../src/index.js';
import { literal, shapeOf, union } from './shapes.js';

/** The flags of one environment. */
export interface EnvironmentFlags {
  /** Its name, when the flags of several environments are merged (a project's). */
  environment?: string;
  flags: readonly Flag[];
}

/** What the file is generated from. */
export interface TypesSource {
  /** The project whose environments are merged, or `undefined` for one environment read with its key. */
  project?: string;
  environments: readonly EnvironmentFlags[];
}

export interface RenderOptions {
  /**
   * `true` for a `.ts` file: `FLAG_KEYS` is a value there (`as const`); in a `.d.ts` file it is
   * only declared.
   */
  runtime: boolean;
}

/** A key whose flags cannot share one type (a boolean flag here, a string flag there). */
export class TypegenError extends Error {
  override readonly name = 'TypegenError';
}

/** Code-unit order, as `Array.prototype.sort` without a comparator. */
const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

type Kind = 'boolean' | 'string' | 'number' | 'json';

const kindOf = (flag: Flag): Kind => (flag.type === 'rollout' ? 'boolean' : flag.type);

/** One key's flags, with the environment each is in. */
type Occurrence = { environment: string | undefined; flag: Flag };

/** A JSDoc line's text, safe inside a comment. */
const safe = (text: string): string => text.replace(/\*\//g, '*\\/');

/** What one environment's flag is: its type and its variants (`dark` = "dark"). */
function summary(flag: Flag): string {
  if (flag.type === 'boolean' || flag.type === 'rollout') return `\`${flag.type}\``;
  const names = Object.keys(flag.variants).sort();
  if (flag.type === 'json') return `\`json\`; variants ${names.map((name) => `\`${name}\``).join(', ')}`;
  const show = (value: JsonValue | undefined) => (typeof value === 'string' ? literal(value) : String(value));
  const pairs = names.map((name) => `\`${name}\` = ${show(flag.variants[name])}`);
  return `\`${flag.type}\`; variants ${pairs.join(', ')}`;
}

/** The JSDoc of one key: its description(s), then where it exists and as what. */
function jsdoc(occurrences: readonly Occurrence[]): string[] {
  const descriptions = new Set(occurrences.map(({ flag }) => flag.description).filter((d) => d !== null));
  const shared = descriptions.size === 1 ? [...descriptions][0]! : undefined;
  const lines: string[] = [];
  if (shared !== undefined) lines.push(...shared.split(/\r\n|\r|\n/).map((l) => l.trimEnd()), '');
  for (const { environment, flag } of occurrences) {
    const own = shared === undefined && flag.description !== null ? ` — ${flag.description}` : '';
    const where = environment === undefined ? '' : `${environment}: `;
    lines.push(`- ${where}${summary(flag)}${own.replace(/\s+/g, ' ')}`);
  }
  return ['/**', ...lines.map((line) => (line === '' ? ' *' : ` * ${safe(line)}`)), ' */'];
}

/** The type of the value a key serves, over every environment it is in. */
function typeOf(key: string, occurrences: readonly Occurrence[]): string {
  const kinds = new Set(occurrences.map(({ flag }) => kindOf(flag)));
  if (kinds.size > 1) {
    const each = occurrences.map(({ environment, flag }) => `${flag.type} in ${environment}`).join(', ');
    throw new TypegenError(
      `flag "${key}" has no one type across the project's environments (${each}): give it one type everywhere, or generate from one environment's key`,
    );
  }
  const kind = [...kinds][0]!;
  if (kind === 'boolean') return 'boolean';
  if (kind === 'number') return 'number';
  const values = occurrences.flatMap(({ flag }) =>
    flag.type === 'boolean' || flag.type === 'rollout' ? [] : Object.values(flag.variants),
  );
  if (kind === 'string') return union(values.map((value) => literal(String(value))));
  const shape = union(values.map(shapeOf));
  // A json flag whose values would read as another kind (all strings, numbers or booleans) is marked.
  const scalar = ['string', 'number', 'boolean'].some((type) =>
    values.every((value) => typeof value === type),
  );
  return scalar ? `JsonFlag<${shape}>` : shape;
}

/** The file's text. Throws `TypegenError` for a key whose flags have no one type. */
export function render(source: TypesSource, options: RenderOptions): string {
  const byKey = new Map<string, Occurrence[]>();
  const environments = [...source.environments].sort((a, b) =>
    compare(a.environment ?? '', b.environment ?? ''),
  );
  for (const { environment, flags } of environments) {
    for (const flag of flags) {
      const list = byKey.get(flag.key) ?? [];
      list.push({ environment, flag });
      byKey.set(flag.key, list);
    }
  }
  const keys = [...byKey.keys()].sort();
  const entries = keys.map((key) => {
    const occurrences = byKey.get(key)!;
    return [...jsdoc(occurrences), `${literal(key)}: ${typeOf(key, occurrences)};`];
  });
  const from =
    source.project === undefined
      ? 'the flags of one environment'
      : `the flags of project ${literal(source.project)} (${environments.map((e) => e.environment).join(', ')})`;
  const body = entries.flat().map((line) => `    ${line}`);
  const lines = [
    `// Generated by \`flagwire types\` from ${from}. Do not edit: run it again to update it;`,
    '// `flagwire types --check` (in CI) fails while it is out of date.',
    ...(body.some((line) => line.includes('JsonFlag<')) ? ["import type { JsonFlag } from 'flagwire';"] : []),
    '',
    "declare module 'flagwire' {",
    '  interface FlagwireFlags {',
    ...body,
    '  }',
    '}',
    '',
    '/** Every flag key above, sorted. */',
    ...flagKeys(keys, options.runtime),
    '',
  ];
  return lines.join('\n');
}

/** `FLAG_KEYS`: a value in a `.ts` file, a declaration in a `.d.ts` file; one key a line. */
function flagKeys(keys: readonly string[], runtime: boolean): string[] {
  const items = keys.map((key) => `  ${literal(key)},`);
  if (runtime)
    return keys.length === 0
      ? ['export const FLAG_KEYS = [] as const;']
      : ['export const FLAG_KEYS = [', ...items, '] as const;'];
  return keys.length === 0
    ? ['export declare const FLAG_KEYS: readonly [];']
    : ['export declare const FLAG_KEYS: readonly [', ...items, '];'];
}
