/**
 * Translates the constraint cases of Unleash's public client specification
 * (`@unleash/client-specification`) into Flagwire's targeting vectors (`unleash.json` here),
 * and lists every case it leaves out, with why (`UNLEASH.md`).
 *
 * An Unleash feature with `default` strategies becomes a boolean flag whose fallthrough is
 * `off`, one rule per strategy (serving `on`) with the strategy's constraints as clauses, and
 * Unleash segments (global constraints) as Flagwire segments. Context fields become user
 * attributes (`properties.*` flattened, `userId` also the user key, `currentTime` as `$now`).
 *
 * Run: node test/vectors/targeting/unleash.mjs && npx biome check --write test/vectors
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const specDir = join(
  dirname(require.resolve('@unleash/client-specification/package.json')),
  'specifications',
);
const version = JSON.parse(readFileSync(join(specDir, '..', 'package.json'), 'utf8')).version;

/** The files with constraints; the others test strategies and APIs Flagwire does not have. */
const FILES = [
  '09-strategy-constraints.json',
  '11-strategy-constraints-edge-cases.json',
  '13-constraint-operators.json',
  '14-constraint-semver-operators.json',
  '15-global-constraints.json',
  '21-regex-constraint-operators.json',
  '22-cidr-constraint-operators.json',
];

/**
 * Cases whose Unleash answer Flagwire deliberately does not give, by test description: the
 * reason goes into UNLEASH.md.
 */
const DIFFERENT = {
  'F8.invalidSemverWithLeadingV - invalid semver resolves to false':
    'the clause value "v2.0.0" is not a version: Flagwire refuses to save it (400), and an SDK given it anyway answers the default with ERROR, not false with a reason',
  'F8.invalidSemverWithLeadingV - broken semver resolves to false':
    'the same flag: its clause value "v2.0.0" is refused when saved',
  'Invalid regex should result in toggle being disabled':
    'an invalid pattern is refused when saved (400, naming its position); an SDK given one anyway answers the default with ERROR',
  'R90 lookahead should be rejected upstream; if it leaks through, it must not enable':
    'lookahead is refused when saved (400), as the case asks; one that leaks through gives the default with ERROR',
  'R91 backreference should be rejected upstream; if it leaks through, it must not enable':
    'backreferences are refused when saved (400), as the case asks; one that leaks through gives the default with ERROR',
};

const OPS = {
  IN: ['in'],
  NOT_IN: ['in', true],
  STR_STARTS_WITH: ['startsWith'],
  STR_ENDS_WITH: ['endsWith'],
  STR_CONTAINS: ['contains'],
  NUM_EQ: ['numberEquals'],
  NUM_GT: ['greaterThan'],
  NUM_GTE: ['greaterThanOrEqual'],
  NUM_LT: ['lessThan'],
  NUM_LTE: ['lessThanOrEqual'],
  DATE_AFTER: ['after'],
  DATE_BEFORE: ['before'],
  SEMVER_EQ: ['semVerEqual'],
  SEMVER_GT: ['semVerGreaterThan'],
  SEMVER_LT: ['semVerLessThan'],
  SEMVER_GTE: ['semVerGreaterThanOrEqual'],
  REGEX: ['matches'],
  SEMVER_LTE: ['semVerLessThanOrEqual'],
  IP: ['inCidr'],
};

class Untranslatable extends Error {}

const attribute = (contextName) => (contextName === 'currentTime' ? '$now' : contextName);

function clause(c) {
  const op = OPS[c.operator];
  if (!op)
    throw new Untranslatable(
      `operator ${c.operator}: Flagwire refuses an unknown operator when saved (400) and evaluates one it meets anyway to the default with ERROR, where Unleash answers false`,
    );
  let values = c.values ?? (c.value === undefined ? [] : [c.value]);
  if (/^NUM_/.test(c.operator)) {
    values = values.map((v) => (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v));
    if (values.some((v) => typeof v !== 'number'))
      throw new Untranslatable(
        `a number operator with a value that is not a number (${JSON.stringify(c.value)})`,
      );
  }
  const out = { attribute: attribute(c.contextName), op: op[0], values };
  if (op[1] !== c.inverted && (op[1] || c.inverted)) out.negate = true;
  if (c.caseInsensitive) out.caseInsensitive = true;
  return out;
}

function user(context = {}) {
  const { properties = {}, ...fields } = context;
  const out = { ...properties, ...fields };
  if (typeof fields.userId === 'string') out.key = fields.userId;
  if (typeof fields.currentTime === 'string') out.$now = Date.parse(fields.currentTime);
  return out;
}

const flags = {};
const segments = {};
const cases = [];
const skipped = [];

for (const file of FILES) {
  const spec = JSON.parse(readFileSync(join(specDir, file), 'utf8'));
  const prefix = file.slice(0, 2);
  const segmentKeys = new Map();
  for (const segment of spec.state.segments ?? []) {
    const key = `${prefix}-segment-${segment.id}`;
    try {
      segments[key] = {
        key,
        included: [],
        excluded: [],
        rules: [{ clauses: segment.constraints.map(clause) }],
      };
      segmentKeys.set(segment.id, key);
    } catch (error) {
      if (!(error instanceof Untranslatable)) throw error;
      skipped.push({ file, test: `segment ${segment.id}`, why: error.message });
    }
  }
  const translated = new Map();
  for (const feature of spec.state.features) {
    const key = `${prefix}-${feature.name}`.replace(/[^A-Za-z0-9._-]/g, '_');
    try {
      if (feature.dependencies?.length) throw new Untranslatable('dependent features (not in these files)');
      const rules = (feature.strategies ?? []).map((strategy, i) => {
        if (strategy.name !== 'default')
          throw new Untranslatable(`strategy ${strategy.name}: Unleash's own rollout hashing`);
        const clauses = (strategy.constraints ?? []).map(clause);
        for (const id of strategy.segments ?? []) {
          if (!segmentKeys.has(id))
            throw new Untranslatable(
              `segment ${id} does not exist: Flagwire refuses a rule naming it when saved (400), and evaluates one it meets anyway to the default with ERROR, where Unleash answers false`,
            );
          clauses.push({ op: 'inSegment', values: [segmentKeys.get(id)] });
        }
        return { id: `s${i}`, clauses, serve: { variant: 'on' } };
      });
      // Unleash: no strategies means on for everyone.
      if (rules.length === 0) rules.push({ id: 'none', clauses: [], serve: { variant: 'on' } });
      flags[key] = {
        key,
        type: 'boolean',
        enabled: feature.enabled,
        version: 1,
        fallthrough: { variant: 'off' },
        rules,
      };
      translated.set(feature.name, key);
    } catch (error) {
      if (!(error instanceof Untranslatable)) throw error;
      translated.set(feature.name, error.message);
    }
  }
  for (const test of spec.tests ?? []) {
    const key = translated.get(test.toggleName);
    if (key === undefined || !flags[key]) {
      skipped.push({ file, test: test.description, why: key ?? `unknown feature ${test.toggleName}` });
      continue;
    }
    if (DIFFERENT[test.description]) {
      skipped.push({ file, test: test.description, why: DIFFERENT[test.description] });
      continue;
    }
    const flag = flags[key];
    const on = test.expectedResult === true;
    const c = {
      flag: key,
      user: user(test.context),
      why: `Unleash ${version} ${file}: ${test.description}`,
      value: on,
    };
    if (!flag.enabled) Object.assign(c, { variant: 'off', reason: 'OFF' });
    // Which strategy matched is not in the specification: `anyRule` asks for a rule, not one.
    else if (on) Object.assign(c, { variant: 'on', reason: 'RULE_MATCH', anyRule: true });
    else Object.assign(c, { variant: 'off', reason: 'FALLTHROUGH' });
    cases.push(c);
  }
}

writeFileSync(
  join(here, 'unleash.json'),
  `${JSON.stringify(
    {
      description: `Translated from @unleash/client-specification ${version} by unleash.mjs; skipped cases in UNLEASH.md.`,
      flags,
      segments,
      cases,
    },
    null,
    1,
  )}\n`,
);
const lines = [
  `# Unleash client-specification ${version}: cases left out`,
  '',
  `\`unleash.mjs\` translated ${cases.length} cases into \`unleash.json\`. These were left out:`,
  '',
  '| File | Test | Why |',
  '| --- | --- | --- |',
  ...skipped.map((s) => `| ${s.file} | ${s.test.replace(/\|/g, '\\|')} | ${s.why.replace(/\|/g, '\\|')} |`),
  '',
];
writeFileSync(join(here, 'UNLEASH.md'), lines.join('\n'));
console.log(`${cases.length} cases, ${skipped.length} skipped`);
