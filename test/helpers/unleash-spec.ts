/**
 * Unleash's client specification (`@unleash/client-specification`), read from the installed
 * package and translated into Flagwire flags, segments and users (`test/integration/openfeature/targeting-unleash.test.ts`
 * runs it; `test/vectors/targeting/UNLEASH.md` lists what is not run, and why).
 *
 * Each feature becomes two flags (`unleash-flags.ts`): a `boolean` flag `NN-name` for the `tests`
 * (Unleash's `isEnabled`) and a `json` flag `NNv-name` for the `variantTests` (`getVariant`),
 * whose values are the answers Unleash gives (`{name, payload, enabled, feature_enabled}`).
 * Segments become segments, contexts users. The delta-API files are read by applying their
 * events as `unleash-client`'s repository does.
 *
 * What has no Flagwire equivalent throws `Untranslatable` with why; a translated flag that
 * Flagwire's validation (the server's, `src/core/targeting/validate.ts`) refuses lists its cases
 * with the refusal. Everything else is run, and a wrong translation fails.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FlagSource } from '../../src/core/targeting/compile.js';
import { checkPattern } from '../../src/core/targeting/patterns.js';
import type { JsonValue, Segment } from '../../src/core/targeting/types.js';
import {
  TargetingInvalid,
  type TargetingRefs,
  validateFlagTargeting,
  validateSegment,
} from '../../src/core/targeting/validate.js';
import type { User } from '../../src/core/types.js';
import { validateCreateFlag } from '../../src/core/validation.js';
import {
  type Constraint,
  clauseOf,
  type Feature,
  flagOf,
  type Keys,
  type Translation,
  Untranslatable,
} from './unleash-flags.js';

interface UnleashSegment {
  id: number;
  constraints?: Constraint[];
}
interface Test<T> {
  description: string;
  context: Record<string, unknown>;
  toggleName: string;
  expectedResult: T;
}
interface SpecFile {
  state: { features?: Feature[]; segments?: UnleashSegment[]; events?: Array<Record<string, never>> };
  tests?: Test<boolean>[];
  variantTests?: Test<JsonValue>[];
}

/** One test or variant test of the specification, as Flagwire runs it. */
export interface UnleashCase {
  kind: 'test' | 'variantTest';
  description: string;
  /** The Flagwire flag (absent from `flags` for a toggle the state does not have). */
  flag: string;
  user: User;
  expected: JsonValue;
  /** Why it is not run; absent when it is. */
  listed?: string;
}

export interface TranslatedFile {
  name: string;
  tests: number;
  variantTests: number;
  flags: Record<string, FlagSource>;
  segments: Record<string, Segment>;
  cases: UnleashCase[];
  /** Flags and segments Flagwire's validation refuses, with its message. */
  refused: Map<string, string>;
}

/** Features and segments of a file, its delta-API events applied as `unleash-client`'s repository does. */
function stateOf(file: SpecFile): { features: Map<string, Feature>; segments: Map<number, UnleashSegment> } {
  let features = new Map((file.state.features ?? []).map((f) => [f.name, f]));
  let segments = new Map((file.state.segments ?? []).map((s) => [s.id, s]));
  // biome-ignore lint/suspicious/noExplicitAny: the events' shapes, by type.
  for (const event of (file.state.events ?? []) as any[]) {
    if (event.type === 'hydration') {
      features = new Map(event.features.map((f: Feature) => [f.name, f]));
      segments = new Map(event.segments.map((s: UnleashSegment) => [s.id, s]));
    } else if (event.type === 'feature-updated') features.set(event.feature.name, event.feature);
    else if (event.type === 'feature-removed') features.delete(event.featureName);
    else if (event.type === 'segment-updated') segments.set(event.segment.id, event.segment);
    else if (event.type === 'segment-removed') segments.delete(event.segmentId);
    else throw new Error(`unknown delta event ${event.type}`);
  }
  return { features, segments };
}

/** An Unleash context as a user: properties and fields as attributes (a field first), `userId` as the key. */
function userOf(context: Record<string, unknown>): User {
  const { properties, ...fields } = context;
  const user: Record<string, unknown> = { ...(properties as Record<string, unknown> | undefined) };
  for (const [name, value] of Object.entries(fields))
    if (value !== undefined && value !== null) user[name] = value;
  if (typeof fields.userId === 'string' && fields.userId) user.key = fields.userId;
  if (typeof fields.currentTime === 'string') user.$now = fields.currentTime;
  return user;
}

/** What Flagwire's validation refuses when the file's segments and flags are saved, with its message. */
function refusals(flags: Record<string, FlagSource>, segments: Record<string, Segment>): Map<string, string> {
  const refused = new Map<string, string>();
  const refs: TargetingRefs = {
    variantsOf: (key) => {
      const flag = refused.has(key) ? undefined : flags[key];
      return flag && (flag.variants ? Object.keys(flag.variants) : ['on', 'off']);
    },
    prerequisitesOf: (key) => flags[key]?.prerequisites ?? [],
    hasSegment: (key) => key in segments && !refused.has(`segment ${key}`),
  };
  const problem = (check: () => void): string | undefined => {
    try {
      check();
      return undefined;
    } catch (error) {
      if (error instanceof TargetingInvalid) return error.message;
      throw error;
    }
  };
  for (const { version: _v, ...segment } of Object.values(segments)) {
    const why = problem(() => validateSegment(segment, refs, checkPattern, false));
    if (why) refused.set(`segment ${segment.key}`, why);
  }
  // A flag whose prerequisite is refused is refused in turn (it names a flag that is not there).
  for (let grew = true; grew; ) {
    grew = false;
    for (const flag of Object.values(flags)) {
      if (refused.has(flag.key)) continue;
      const { enabled: _e, version: _v, prerequisites, ...body } = flag;
      const created = validateCreateFlag(body);
      const names = flag.variants ? Object.keys(flag.variants) : ['on', 'off'];
      const why = created.ok
        ? problem(() =>
            validateFlagTargeting(
              prerequisites ? { ...body, prerequisites } : body,
              { key: flag.key, type: flag.type, variants: names },
              refs,
              checkPattern,
              () => 'r',
            ),
          )
        : created.message;
      if (why) {
        refused.set(flag.key, why);
        grew = true;
      }
    }
  }
  return refused;
}

/** Translates one file of the specification. */
function translate(name: string, file: SpecFile): TranslatedFile {
  const nn = name.slice(0, 2);
  const keys: Keys = {
    flag: (feature, json) => `${nn}${json ? 'v' : ''}-${feature}`,
    segment: (id) => `${nn}-segment-${id}`,
  };
  const { features, segments: unleashSegments } = stateOf(file);
  const segments: Record<string, Segment> = {};
  for (const s of unleashSegments.values())
    segments[keys.segment(s.id)] = {
      key: keys.segment(s.id),
      included: [],
      excluded: [],
      rules: [{ clauses: (s.constraints ?? []).map(clauseOf) }],
    };
  const flags: Record<string, FlagSource> = {};
  const translations = new Map<string, Translation>();
  for (const feature of features.values())
    for (const json of [false, true]) {
      const key = keys.flag(feature.name, json);
      try {
        const translation = flagOf(feature, key, keys, features, json);
        translations.set(key, translation);
        flags[key] = translation.flag!;
      } catch (error) {
        if (!(error instanceof Untranslatable)) throw error;
        translations.set(key, { why: error.message });
      }
    }
  const refused = refusals(flags, segments);
  const caseOf = (kind: UnleashCase['kind'], test: Test<JsonValue>): UnleashCase => {
    const flag = keys.flag(test.toggleName, kind === 'variantTest');
    const user = userOf(test.context);
    const c: UnleashCase = { kind, description: test.description, flag, user, expected: test.expectedResult };
    const translation = translations.get(flag);
    const random = translation?.randomWithout?.every(
      (a) => typeof test.context[a] !== 'string' || !test.context[a],
    );
    const why = !translation
      ? undefined
      : (translation.why ??
        (refused.has(flag)
          ? `Flagwire refuses the translated flag when saved (400): ${refused.get(flag)}`
          : undefined) ??
        (random
          ? `no ${translation.randomWithout!.join(' or ')}: Unleash's "default" stickiness then draws a random number, Flagwire buckets by attributes`
          : undefined));
    if (why) c.listed = why;
    return c;
  };
  return {
    name,
    tests: file.tests?.length ?? 0,
    variantTests: file.variantTests?.length ?? 0,
    flags,
    segments,
    cases: [
      ...(file.tests ?? []).map((t) => caseOf('test', t)),
      ...(file.variantTests ?? []).map((t) => caseOf('variantTest', t)),
    ],
    refused,
  };
}

const root = dirname(createRequire(import.meta.url).resolve('@unleash/client-specification/package.json'));

/** The package's version and every file its `specifications/index.json` lists, translated. */
export function readUnleashSpecification(): { version: string; index: string[]; files: TranslatedFile[] } {
  const read = (path: string) => JSON.parse(readFileSync(join(root, path), 'utf8'));
  const index: string[] = read('specifications/index.json');
  return {
    version: read('package.json').version,
    index,
    files: index.map((name) => translate(name, read(`specifications/${name}`))),
  };
}
