/**
 * Unleash's client specification (`@unleash/client-specification`, read from the package at
 * test time and translated by `helpers/unleash-spec.ts`): every test and variant test of every
 * file the package lists is run through Flagwire's evaluator, the SDK client and OFREP, or listed
 * with why in `vectors/targeting/UNLEASH.md`, which this test writes and checks (`-u` rewrites
 * it). A case neither run nor listed, or a translation Flagwire answers otherwise, fails.
 */
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type CompiledFlag,
  type CompiledSegment,
  compileFlag,
  compileSegment,
} from '../../../src/core/targeting/compile.js';
import { evaluateVariant, lastOutcome, type TargetingContext } from '../../../src/core/targeting/evaluate.js';
import { compileMatches } from '../../../src/core/targeting/patterns.js';
import type { JsonValue } from '../../../src/core/targeting/types.js';
import { createClient, type FlagwireClient } from '../../../src/index.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import {
  readUnleashSpecification,
  type TranslatedFile,
  type UnleashCase,
} from '../../helpers/unleash-spec.js';

const spec = readUnleashSpecification();
const run = (file: TranslatedFile) => file.cases.filter((c) => c.listed === undefined);
const listed = (file: TranslatedFile) => file.cases.filter((c) => c.listed !== undefined);

/** Cases that agreed, by file and by way of evaluating. */
const passed = new Map(spec.files.map((f) => [f.name, { core: 0, client: 0, ofrep: 0 }]));

/**
 * The caller's default: for a toggle the state does not have, Unleash's own answer (`false`, the
 * `disabled` variant); otherwise one that differs from the expected answer, so that an error
 * answering the default fails.
 */
function defaultOf(file: TranslatedFile, c: UnleashCase): JsonValue {
  if (!(c.flag in file.flags))
    return c.kind === 'test' ? false : { name: 'disabled', enabled: false, feature_enabled: false };
  return c.kind === 'test' ? !c.expected : null;
}

const title = (file: TranslatedFile, c: UnleashCase) => `${file.name} ${c.kind} "${c.description}"`;

function markdown(): string {
  const files = spec.files;
  const total = (count: (f: TranslatedFile) => number) => files.reduce((sum, f) => sum + count(f), 0);
  const row = (cells: Array<string | number>) =>
    `| ${cells.map((c) => String(c).replace(/\|/g, '\\|')).join(' | ')} |`;
  return [
    `# Unleash client specification ${spec.version} in Flagwire`,
    '',
    '`test/integration/openfeature/targeting-unleash.test.ts` reads `@unleash/client-specification` from `node_modules`, translates',
    "every file (`test/helpers/unleash-spec.ts`) and runs each case through Flagwire's evaluator, an SDK",
    "client loaded from a live server, and that server's OFREP. It writes this file and fails when it",
    'differs (`npx vitest run --project integration test/integration/openfeature/targeting-unleash.test.ts -u` rewrites it).',
    '',
    'A case is listed when its feature uses something Flagwire does not have, or when Flagwire refuses',
    'the translated flag when it is saved (the 400 message is quoted; the test checks that the server',
    'refuses exactly those). Every other case is run, and must give the answer the specification gives.',
    'Cases listed only for a clause without values are still run by the evaluator, which must answer a',
    'flag stored before the server refused such clauses.',
    '',
    row(['File', 'Tests', 'Variant tests', 'Run', 'Listed']),
    row(['---', '---:', '---:', '---:', '---:']),
    ...files.map((f) => row([f.name, f.tests, f.variantTests, run(f).length, listed(f).length])),
    row([
      `All ${files.length}`,
      total((f) => f.tests),
      total((f) => f.variantTests),
      total((f) => run(f).length),
      total((f) => listed(f).length),
    ]),
    '',
    '## Cases not run, and why',
    '',
    row(['File', 'Case', 'Why']),
    row(['---', '---', '---']),
    ...files.flatMap((f) => listed(f).map((c) => row([f.name, `${c.kind}: ${c.description}`, c.listed!]))),
    '',
  ].join('\n');
}

afterAll(() => {
  const lines = spec.files.map((f) => {
    const p = passed.get(f.name)!;
    return `${f.name.padEnd(44)} run ${String(run(f).length).padStart(3)}  passed ${p.core}/${p.client}/${p.ofrep}  listed ${listed(f).length}`;
  });
  console.log(
    `Unleash client specification ${spec.version} (passed: core evaluator / SDK client / OFREP)\n${lines.join('\n')}`,
  );
});

describe(`Unleash client specification ${spec.version}, read from @unleash/client-specification`, () => {
  it('translates every file the package has, each test and variant test once', () => {
    const root = dirname(
      createRequire(import.meta.url).resolve('@unleash/client-specification/package.json'),
    );
    const files = readdirSync(join(root, 'specifications')).filter((n) => /^\d+-.*\.json$/.test(n));
    expect(spec.index).toEqual(files.sort());
    expect(spec.files.map((f) => f.name)).toEqual(spec.index);
    for (const f of spec.files) expect(f.cases.length, f.name).toBe(f.tests + f.variantTests);
  });

  it('lists every case it does not run, with why, in UNLEASH.md', async () => {
    await expect(markdown()).toMatchFileSnapshot('../../vectors/targeting/UNLEASH.md');
  });

  /** Runs `cases` of `file` through the core evaluator: what it answers otherwise, one line each. */
  function evaluateCore(file: TranslatedFile, cases: UnleashCase[], agreed: () => void): string[] {
    const flags = new Map<string, CompiledFlag>();
    const segments = new Map<string, CompiledSegment>();
    for (const [key, flag] of Object.entries(file.flags)) flags.set(key, compileFlag(flag, compileMatches));
    for (const [key, segment] of Object.entries(file.segments))
      segments.set(key, compileSegment(segment, compileMatches));
    const context: TargetingContext = {
      flag: (key) => flags.get(key),
      segment: (key) => segments.get(key),
    };
    const wrong: string[] = [];
    for (const c of cases) {
      const flag = flags.get(c.flag);
      const index = flag ? evaluateVariant(flag, c.user, context) : -1;
      const value = flag && index >= 0 ? flag.values[index] : defaultOf(file, c);
      if (JSON.stringify(value) === JSON.stringify(c.expected)) agreed();
      else
        wrong.push(
          `${title(file, c)}: ${JSON.stringify(value)} (${lastOutcome.reason}), expected ${JSON.stringify(c.expected)}`,
        );
    }
    return wrong;
  }

  for (const file of spec.files) {
    it(`${file.name}: ${run(file).length} run, ${listed(file).length} listed, by the core evaluator`, () => {
      expect(evaluateCore(file, run(file), () => passed.get(file.name)!.core++)).toEqual([]);
    });
  }

  it('still evaluates, by the core evaluator, the cases listed only for a clause without values', () => {
    // The server refuses such a clause when saved (docs/protocol.md §12.2), but a flag stored
    // before that check keeps loading, and the SDK must answer it as Unleash does (IN an empty
    // list never holds, NOT_IN one always does).
    const empty =
      /^Flagwire refuses the translated flag when saved \(400\): \S+\.values: \w+ takes at least one value$/;
    let agreed = 0;
    const wrong = spec.files.flatMap((file) =>
      evaluateCore(
        file,
        listed(file).filter((c) => empty.test(c.listed!)),
        () => agreed++,
      ),
    );
    expect(wrong).toEqual([]);
    expect(agreed).toBeGreaterThan(0);
  });

  it('through a live server: it saves what Flagwire validation accepts, and the SDK client and OFREP answer every case run', async () => {
    let t: TestServer | undefined;
    let client: FlagwireClient | undefined;
    try {
      t = await startTestServer({ config: undefined });
      const refused = new Map<string, string>();
      for (const file of spec.files) {
        for (const { version: _v, ...segment } of Object.values(file.segments)) {
          const res = await t.api('POST', '/segments', segment);
          if (res.status !== 201) refused.set(`segment ${segment.key}`, await res.text());
        }
        for (const { enabled: _e, version: _v, prerequisites: _p, ...body } of Object.values(file.flags)) {
          const res = await t.api('POST', '/flags', body);
          if (res.status !== 201) refused.set(body.key, await res.text());
        }
        for (const { key, enabled, prerequisites } of Object.values(file.flags)) {
          if (refused.has(key)) continue;
          const res = await t.api('PATCH', `/flags/${key}`, {
            enabled,
            ...(prerequisites ? { prerequisites } : {}),
          });
          if (res.status !== 200) refused.set(key, await res.text());
        }
      }
      const expectedRefused = spec.files.flatMap((f) => [...f.refused.keys()]);
      expect([...refused.keys()].sort()).toEqual(expectedRefused.sort());
      for (const f of spec.files)
        for (const [key, why] of f.refused)
          expect(refused.get(key), key).toContain(JSON.stringify(why).slice(1, -1));

      client = createClient({ baseUrl: t.base, apiKey: t.fullKey, stream: false, logger: false });
      await client.ready({ timeoutMs: 10_000 });
      const wrong: string[] = [];
      for (const file of spec.files) {
        const counts = passed.get(file.name)!;
        for (const c of run(file)) {
          const detail = client.getDetail(c.flag, c.user, defaultOf(file, c));
          if (JSON.stringify(detail.value) === JSON.stringify(c.expected)) counts.client++;
          else
            wrong.push(
              `client: ${title(file, c)}: ${JSON.stringify(detail)}, expected ${JSON.stringify(c.expected)}`,
            );
          const { key, ...attributes } = c.user as Record<string, unknown>;
          const res = await fetch(`${t.server.url}/ofrep/v1/evaluate/flags/${encodeURIComponent(c.flag)}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${t.fullKey}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              context: key === undefined ? attributes : { ...attributes, targetingKey: key },
            }),
          });
          const answer = (await res.json()) as Record<string, unknown>;
          // A toggle the state does not have: OFREP says so, and the provider answers the default.
          const agrees =
            c.flag in file.flags
              ? res.status === 200 && JSON.stringify(answer.value) === JSON.stringify(c.expected)
              : res.status === 404 && answer.errorCode === 'FLAG_NOT_FOUND';
          if (agrees) counts.ofrep++;
          else
            wrong.push(
              `OFREP: ${title(file, c)}: ${res.status} ${JSON.stringify(answer)}, expected ${JSON.stringify(c.expected)}`,
            );
        }
      }
      expect(wrong).toEqual([]);
    } finally {
      await client?.close();
      await t?.close();
    }
  });
});
