/**
 * `matches` programs on the wire (`docs/protocol.md` §12.6): the server parses a pattern once
 * and sends the program; the SDK checks and runs it (`src/core/pattern/wire.ts`).
 *
 * - Round trip: for generated patterns and inputs, the program sent as JSON and read back answers
 *   as the parsed one (sets with Unicode properties and case folding included).
 * - The check: every program that could make the machine read outside itself, or run a set that
 *   is more than one class, is refused; a refused program makes the SDK's flag malformed (its
 *   default with `MALFORMED_FLAG`) and leaves the other flags alone.
 *
 * Reproduce a random failure: PROPERTY_SEED=<seed printed by fast-check> npx vitest run test/unit/targeting/pattern-wire.test.ts
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { servedDetail } from '../../../src/client/evaluation.js';
import { FlagStore } from '../../../src/client/flag-store.js';
import { parse } from '../../../src/core/pattern/parse.js';
import { Op } from '../../../src/core/pattern/program.js';
import { machine } from '../../../src/core/pattern/vm.js';
import { fromWire, toWire, type WireProgram } from '../../../src/core/pattern/wire.js';
import { sdkFlag } from '../../../src/core/sdk-flag.js';
import { withPrograms } from '../../../src/core/targeting/programs.js';
import type { Clause } from '../../../src/core/targeting/types.js';
import { createTestClient } from '../../../src/testing/index.js';
import { PROPERTY_SEED, params } from '../../helpers/property-seed.js';

const overTheWire = (program: WireProgram) => fromWire(JSON.parse(JSON.stringify(program)));

describe(`round trip (seed ${PROPERTY_SEED})`, () => {
  const PIECES = [
    ...'()[]|*+?^$.\\-0123456789abxAbBdDwWsSé😀K\n'.split(''),
    ...['\\pL', '\\p{Greek}', '\\PN', '[[:alpha:]]', '(?i)', '(?m)', '(?s)', '{2,3}', '[^a-c]', '\\b', '\\z'],
  ];
  it('answers as the parsed program, for every pattern that compiles', () => {
    let compiled = 0;
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...PIECES), { maxLength: 12 }).map((xs) => xs.join('')),
        fc.boolean(),
        fc.array(fc.string({ maxLength: 12, unit: 'grapheme' }), { minLength: 1, maxLength: 6 }),
        (pattern, fold, inputs) => {
          let program: ReturnType<typeof parse>;
          try {
            program = parse(pattern, fold);
          } catch {
            return;
          }
          compiled++;
          const direct = machine(program);
          const sent = machine(overTheWire(toWire(program)));
          for (const input of [...inputs, pattern, 'ΣΑΣ σας k K'])
            expect(sent.test(input), `${JSON.stringify(pattern)} on ${JSON.stringify(input)}`).toBe(
              direct.test(input),
            );
        },
      ),
      params(2000),
    );
    expect(compiled).toBeGreaterThan(500);
  });

  it('carries sets as one class and its flags', () => {
    const wire = toWire(parse('\\pL+é', true));
    expect(wire.sets.length).toBeGreaterThan(0);
    for (const [source, flags] of wire.sets) {
      expect(source).toMatch(/^\[.*\]$/s);
      expect(['uy', 'iuy']).toContain(flags);
    }
    const m = machine(overTheWire(wire));
    expect([m.test('ΣΑΣÉ'), m.test('123é'), m.test('x')]).toEqual([true, false, false]);
  });
});

describe('the check before running', () => {
  const good = toWire(parse('ab|[x-z]+\\pL', false));
  const variants: Array<[string, (w: WireProgram) => unknown]> = [
    ['not an object', () => 'program'],
    ['null', () => null],
    ['no code', (w) => ({ ...w, code: undefined })],
    ['empty code', (w) => ({ ...w, code: [] })],
    ['code not a multiple of three', (w) => ({ ...w, code: w.code.slice(0, -1) })],
    ['a fraction in the code', (w) => ({ ...w, code: [...w.code.slice(0, -3), Op.Match, 0.5, 0] })],
    ['an unknown op', (w) => ({ ...w, code: [99, 0, 0, ...w.code] })],
    ['a jump outside', (w) => ({ ...w, code: [Op.Split, 3, 3000, ...w.code] })],
    ['a jump before the start', (w) => ({ ...w, code: [Op.Split, 3, -3, ...w.code] })],
    ['a jump into an instruction', (w) => ({ ...w, code: [Op.Split, 3, 4, ...w.code] })],
    ['a consuming last instruction', (w) => ({ ...w, code: [...w.code.slice(0, -3), Op.Ranges, 0, 2] })],
    ['ranges past the table', (w) => ({ ...w, code: [Op.Ranges, 0, w.ranges.length + 2, ...w.code] })],
    ['an odd range count', (w) => ({ ...w, code: [Op.Ranges, 0, 1, ...w.code] })],
    ['a set that is not there', (w) => ({ ...w, code: [Op.Set, w.sets.length, 0, ...w.code] })],
    ['an unknown assertion', (w) => ({ ...w, code: [Op.Assert, 6, 0, ...w.code] })],
    ['a code point past Unicode', (w) => ({ ...w, ranges: [...w.ranges, 0x110000, 0x110000] })],
    ['a negative range', (w) => ({ ...w, ranges: [-1, 5] })],
    ['a set that is a whole expression', (w) => ({ ...w, sets: [['(a+)+$', 'uy']] })],
    ['a set with something after its class', (w) => ({ ...w, sets: [['[a]|(a+)+b]', 'uy']] })],
    ['a set with other flags', (w) => ({ ...w, sets: [['[a]', 'gy']] })],
    ['a program over the size limit', () => ({ code: Array(15_003).fill(0), ranges: [], sets: [] })],
  ];

  it('takes the program the server makes', () => {
    expect(machine(fromWire(good)).test('xxyΣ')).toBe(true);
  });

  it.each(variants)('refuses %s', (_what, change) => {
    expect(() => fromWire(change(good))).toThrow('bad program');
  });

  it('refuses a set that is not a RegExp', () => {
    expect(() => fromWire({ ...good, sets: [['[\\p{Nope}]', 'uy']] })).toThrow(SyntaxError);
  });
});

describe('in the SDK', () => {
  const rule = (clause: Clause) => ({
    key: 'greeting',
    type: 'string' as const,
    enabled: true,
    description: null,
    variants: { hello: 'hello', bye: 'bye' },
    offVariant: 'bye',
    fallthrough: { variant: 'bye' },
    rules: [{ id: 'r1', clauses: [clause], serve: { variant: 'hello' } }],
  });

  it('sends a program on each matches clause, and leaves the flag it was given alone', () => {
    const flag = rule({ attribute: 'email', op: 'matches', values: ['@example\\.com$'] });
    const sent = withPrograms(flag);
    const clause = sent.rules[0]!.clauses[0] as Clause & { program?: WireProgram };
    expect(clause.program).toEqual(toWire(parse('@example\\.com$', false)));
    expect('program' in flag.rules[0]!.clauses[0]!).toBe(false);
    const plain = rule({ attribute: 'email', op: 'in', values: ['a'] });
    expect(withPrograms(plain)).toBe(plain);
  });

  it('holds a flag whose program is refused as malformed, and the others as they are', () => {
    // The store as the client fills it from the wire (the test kit would compile afresh).
    const store = new FlagStore();
    const put = (flag: ReturnType<typeof rule>) => store.put(sdkFlag(flag, 1));
    const detail = (key: string, email: string) =>
      servedDetail(
        store.entries.get(key),
        { key: 'u', email },
        'default',
        'string',
        store.context,
        true,
        true,
      );
    put(withPrograms(rule({ attribute: 'email', op: 'matches', values: ['@example\\.com$'] })));
    put({ ...rule({ attribute: 'email', op: 'in', values: ['a@b.c'] }), key: 'other' });
    expect(detail('greeting', 'me@example.com').value).toBe('hello');
    const spoilt = withPrograms(rule({ attribute: 'email', op: 'matches', values: ['@example\\.com$'] }));
    (spoilt.rules[0]!.clauses[0] as Clause & { program: WireProgram }).program.code.unshift(Op.Assert, 6, 0);
    put(spoilt);
    expect(detail('greeting', 'me@example.com')).toMatchObject({
      value: 'default',
      errorCode: 'MALFORMED_FLAG',
    });
    // A clause the server sent without a program (a pattern it could not compile) likewise.
    put(rule({ attribute: 'email', op: 'matches', values: ['@example\\.com$'] }));
    expect(detail('greeting', 'me@example.com')).toMatchObject({
      value: 'default',
      errorCode: 'MALFORMED_FLAG',
    });
    expect(detail('other', 'a@b.c').value).toBe('hello');
  });

  it('the test kit compiles patterns as the server does', () => {
    const client = createTestClient({
      flags: [rule({ attribute: 'email', op: 'matches', values: ['@example\\.com$'] })],
    });
    expect(client.getString('greeting', { key: 'u', email: 'me@example.com' }, 'default')).toBe('hello');
    expect(client.getString('greeting', { key: 'u', email: 'me@example.org' }, 'default')).toBe('bye');
  });
});
