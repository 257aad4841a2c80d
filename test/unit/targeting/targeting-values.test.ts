/**
 * The clause machinery under the evaluator (`src/core/targeting/clauses.ts`, `values.ts`,
 * `../murmur3.ts`), below what the conformance vectors reach: every operator maps to its test,
 * operator names from `Object.prototype` are refused, SemVer 2.0.0 precedence with pre-releases,
 * the memo of user versions, and the hash reduced modulo a bucket count; attributes are own
 * properties only, dates that do not exist are no time, versions with numbers past 2^53 - 1 no
 * version.
 */
import { describe, expect, it } from 'vitest';
import { murmur3, murmur3Continue, murmur3Prefix } from '../../../src/core/murmur3.js';
import { attributeOf, attributePath } from '../../../src/core/targeting/attributes.js';
import { clauseHolds, compileClause } from '../../../src/core/targeting/clauses.js';
import { compileFlag } from '../../../src/core/targeting/compile.js';
import { evaluateVariant } from '../../../src/core/targeting/evaluate.js';
import { memoized } from '../../../src/core/targeting/memo.js';
import { CLAUSE_OPERATORS, type Clause, type ClauseOperator } from '../../../src/core/targeting/types.js';
import {
  addressOf,
  compareVersions,
  lowercase,
  toNumber,
  toTime,
  versionOf,
} from '../../../src/core/targeting/values.js';

/** Whether `clause` holds for the attribute `value` (what `evaluate.ts` asks, before `negate`). */
const holds = (clause: Omit<Clause, 'attribute'>, value: unknown): boolean =>
  clauseHolds(compileClause({ attribute: 'a', ...clause }, undefined), value);

/** Per operator: its values, an attribute value it holds for and one it does not. */
const CASES: Record<Exclude<ClauseOperator, 'matches' | 'inSegment'>, [unknown[], unknown, unknown]> = {
  in: [['x', 2], 2, '2'],
  startsWith: [['ab'], 'abc', 'cab'],
  endsWith: [['bc'], 'abc', 'bca'],
  contains: [['b'], 'abc', 'ac'],
  lessThan: [[5], 4, 5],
  lessThanOrEqual: [[5], '5', 6],
  greaterThan: [[5], 6, 5],
  greaterThanOrEqual: [[5], 5, 4.5],
  numberEquals: [[5], '5.0', 5.5],
  before: [['2024-01-01T00:00:00Z'], 1704067199999, 1704067200000],
  after: [['2024-01-01T00:00:00Z'], '2024-01-01 00:00:00.001+00:00', '2024-01-01T00:00:00Z'],
  semVerEqual: [['1.2'], '1.2.0+build', '1.2.0-rc.1'],
  semVerLessThan: [['1.2.0'], '1.2.0-rc.1', '1.2.0'],
  semVerLessThanOrEqual: [['1.2.0'], '1.2.0', '1.2.1'],
  semVerGreaterThan: [['1.2.0-rc.1'], '1.2.0', '1.2.0-beta.9'],
  semVerGreaterThanOrEqual: [['1.2.0-rc.1'], '1.2.0-rc.1', '1.2.0-rc.0'],
  inCidr: [['10.0.0.0/8', '2001:db8::/32'], '2001:db8::1', '11.0.0.1'],
  exists: [[], 0, null],
};

describe('clauses', () => {
  it.each(Object.entries(CASES))('%s holds for its value and not for the other', (op, [values, yes, no]) => {
    expect(holds({ op: op as ClauseOperator, values }, yes)).toBe(true);
    expect(holds({ op: op as ClauseOperator, values }, no)).toBe(false);
  });

  it('covers every operator the contract names', () => {
    expect([...Object.keys(CASES), 'matches', 'inSegment'].sort()).toEqual([...CLAUSE_OPERATORS].sort());
  });

  it('refuses operators it does not know, Object.prototype names included', () => {
    for (const op of ['startWith', 'toString', 'constructor', '__proto__', 'hasOwnProperty', ''])
      expect(() =>
        compileClause({ attribute: 'a', op: op as ClauseOperator, values: [] }, undefined),
      ).toThrow(`bad ${op} clause`);
  });

  it('reads an array attribute element by element, skipping null, and lowercases both sides when asked', () => {
    expect(holds({ op: 'startsWith', values: ['B'], caseInsensitive: true }, [null, 1, 'bee'])).toBe(true);
    expect(holds({ op: 'startsWith', values: ['B'] }, [null, 1, 'bee'])).toBe(false);
    expect(holds({ op: 'in', values: ['Ab'], caseInsensitive: true }, ['x', 'aB'])).toBe(true);
    expect(holds({ op: 'semVerLessThan', values: ['2.0.0'] }, ['v1', '1.9.9'])).toBe(true);
    expect(holds({ op: 'exists', values: [] }, [])).toBe(true);
    expect(holds({ op: 'in', values: [null] }, null)).toBe(false);
  });
});

describe('versions', () => {
  // SemVer 2.0.0, section 11, extended with padded and higher versions.
  const ORDER = [
    '1.0.0-alpha',
    '1.0.0-alpha.1',
    '1.0.0-alpha.beta',
    '1.0.0-beta',
    '1.0.0-beta.2',
    '1.0.0-beta.11',
    '1.0.0-rc.1',
    '1.0.0',
    '1.0.1-0',
    '1.0.1',
    '1.1',
    '2',
    '10.0.0',
  ];

  it('orders by SemVer 2.0.0 precedence, pre-releases included', () => {
    for (let i = 0; i < ORDER.length; i++)
      for (let k = 0; k < ORDER.length; k++)
        expect(
          Math.sign(compareVersions(versionOf(ORDER[i]!)!, versionOf(ORDER[k]!)!)),
          `${ORDER[i]} ${ORDER[k]}`,
        ).toBe(Math.sign(i - k));
  });

  it('ignores build metadata and refuses what is not SemVer', () => {
    expect(compareVersions(versionOf('1.0.0-rc.1+build.5')!, versionOf('1.0.0-rc.1')!)).toBe(0);
    for (const text of [
      'v1.0.0',
      '01.2.3',
      '1.02',
      '1.2.3.4',
      '1.0.0-01',
      '1.0.0-',
      '1.0.0+',
      '1..2',
      '',
      ' 1',
    ])
      expect(versionOf(text), text).toBeNull();
  });

  it('memoizes by text: a new string of the same text gets the same parse, until 256 others start it over', () => {
    const first = versionOf('7.8.9-rc.1')!;
    expect(versionOf(['7', '8', '9-rc', '1'].join('.'))).toBe(first);
    for (let i = 0; i < 256; i++) versionOf(`0.0.${i}`);
    const again = versionOf('7.8.9-rc.1')!;
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
    // Longer texts are parsed every time, not kept.
    const long = `1.0.0-${'a'.repeat(64)}`;
    expect(versionOf(long)).not.toBe(versionOf(long));
  });
});

describe('what a text attribute is read as, once per distinct text', () => {
  it('keeps the lowercase, number, time and address of a text, and derives them right', () => {
    expect(lowercase('User@Example.COM')).toBe('user@example.com');
    expect(lowercase('İSTANBUL')).toBe('İSTANBUL'.toLowerCase());
    expect([toNumber('1.25'), toNumber('01'), toNumber(' 1'), toNumber('-3e2')]).toEqual([
      1.25,
      Number.NaN,
      Number.NaN,
      -300,
    ]);
    expect(toTime('2024-01-01 00:00:00+01:00')).toBe(Date.parse('2023-12-31T23:00:00Z'));
    expect(toTime('2024-01-01')).toBeNaN();
    const ip = addressOf('10.1.2.3')!;
    expect(ip.family).toBe(4);
    expect([...ip.groups.slice(6)]).toEqual([0x0a01, 0x0203]);
    expect(addressOf('2001:db8::1')!.family).toBe(6);
    expect(addressOf('1.2.3.4::')).toBeNull();
    // The same text, a new string: the same object (no new parse), until 256 others start it over.
    expect(addressOf(['10', '1', '2', '3'].join('.'))).toBe(ip);
    for (let i = 0; i < 256; i++) addressOf(`10.0.0.${i}`);
    const again = addressOf('10.1.2.3')!;
    expect(again).not.toBe(ip);
    expect(again).toEqual(ip);
    const long = `::ffff:${'0:'.repeat(30)}`;
    expect(addressOf(long)).toBeNull();
  });

  it('derives a text over 64 characters every time, keeping nothing; remembers what is not one', () => {
    const seen: string[] = [];
    const derive = memoized((text) => {
      seen.push(text);
      return text.length > 3 ? null : text.length;
    });
    const long = 'x'.repeat(65);
    derive(long);
    derive(long);
    derive('abcd');
    derive('abcd');
    derive('ab');
    derive('ab');
    expect(seen).toEqual([long, long, 'abcd', 'ab']);
  });
});

describe('attributes, own properties only', () => {
  const read = (user: unknown, attribute: string) => attributeOf(user as never, attributePath(attribute));

  it('reads nothing a user inherits, at the top or through a pointer', () => {
    const user = { key: 'u', a: {}, list: [1] };
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf'])
      for (const attribute of [name, `/${name}`, `/a/${name}`, `/a/__proto__/${name}`, `/list/${name}`])
        expect(read(user, attribute), attribute).toBeUndefined();
    // `key` too: a prototype's key (a polluted Object.prototype, a class's getter) is none.
    expect(read(Object.create({ key: 'admin' }), 'key')).toBeUndefined();
    expect(read(Object.create({ plan: 'pro' }), 'plan')).toBeUndefined();
  });

  it('reads own properties, __proto__ included, and what JSON gives', () => {
    const user = JSON.parse('{"key":"u","__proto__":1,"a":{"constructor":2},"list":[3]}');
    expect(read(user, '__proto__')).toBe(1);
    expect(read(user, '/__proto__')).toBe(1);
    expect(read(user, '/a/constructor')).toBe(2);
    expect(read(user, '/list/0')).toBe(3);
    expect(read(user, '/list/length')).toBe(1);
    expect(read(user, 'key')).toBe('u');
    expect(read('u', 'key')).toBe('u');
    expect(read('u', 'constructor')).toBeUndefined();
    expect(read(undefined, 'key')).toBeUndefined();
    expect(read({ $now: 5 }, '$now')).toBe(5);
    expect(typeof read({}, '$now')).toBe('number');
  });
});

describe('dates that do not exist', () => {
  it('are no time: February 30, February 29 of a common year, hour 24, minute, second or offset 60', () => {
    for (const text of [
      '2026-02-30T00:00:00Z',
      '2026-02-29T00:00:00Z',
      '1900-02-29T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-06-31T00:00:00Z',
      '2026-09-31T00:00:00Z',
      '2026-11-31T00:00:00Z',
      '2026-01-32T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '2026-01-01T23:60:00Z',
      '2026-12-31T23:59:60Z',
      '2026-01-01T00:00:00+24:00',
      '2026-01-01T00:00:00-00:60',
      '2026-00-01T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-01-00T00:00:00Z',
    ])
      expect(toTime(text), text).toBeNaN();
  });

  it('are read as Date.parse reads every date that exists, on every day of leap and common years', () => {
    const pad = (n: number, width = 2) => String(n).padStart(width, '0');
    for (const year of [0, 1, 99, 100, 400, 1900, 1970, 2000, 2024, 2026, 9999]) {
      const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
      // The 366 days of 2000, a leap year; February 29 only in leap years.
      for (let day = 0; day < 366; day++) {
        const date = new Date(Date.UTC(2000, 0, 1 + day));
        if (day === 59 && !leap) continue;
        const stamp = `${pad(year, 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}T13:45:59.987654-09:30`;
        expect(toTime(stamp), stamp).toBe(Date.parse(stamp));
      }
    }
    expect(toTime('2024-02-29 00:00:00.5z')).toBe(Date.parse('2024-02-29T00:00:00.500Z'));
  });
});

describe('versions with numbers past 2^53 - 1', () => {
  it('are versions, and compare exactly with operands at most 2^53 - 1', () => {
    const max = '9007199254740991';
    for (const [user, operand, sign] of [
      ['9007199254740992.0.0', `${max}.0.0`, 1],
      ['9007199254740993.0.0', `${max}.${max}.${max}`, 1],
      [`1.${'9'.repeat(400)}`, `1.${max}`, 1],
      [`1.0.0-${'9'.repeat(30)}`, `1.0.0-${max}`, 1],
      [`1.0.0-rc.9007199254740993`, `1.0.0-rc.${max}`, 1],
      [`1.0.0-rc.9007199254740993`, `1.0.0-rc.x`, -1],
      [`${max}.0.0`, '9007199254740990.0.0', 1],
    ] as const) {
      expect(Math.sign(compareVersions(versionOf(user)!, versionOf(operand)!)), `${user} ${operand}`).toBe(
        sign,
      );
      expect(Math.sign(compareVersions(versionOf(operand)!, versionOf(user)!)), `${operand} ${user}`).toBe(
        -sign,
      );
    }
    expect(holds({ op: 'semVerEqual', values: [`${max}.0.0`] }, '9007199254740992.0.0')).toBe(false);
  });
});

describe('murmur3Continue', () => {
  it('is the hash of the joined text modulo the bucket count, for ASCII and other text', () => {
    for (const [head, tail] of [
      ['flag:', 'user-1'],
      ['salt:', ''],
      ['', 'é😀x'],
      ['x:', '\ud800'],
      ['abc:', 'defghijklmnop'],
    ] as const) {
      const prefix = murmur3Prefix(head);
      const hash = murmur3(head + tail);
      expect(murmur3Continue(prefix, tail)).toBe(hash);
      expect(murmur3Continue(prefix, tail, 100)).toBe(hash % 100);
      expect(murmur3Continue(prefix, tail, 100_000)).toBe(hash % 100_000);
    }
  });
});

describe('a rule reads an attribute once for consecutive clauses on it', () => {
  it('reads age once for age >= 18 and age < 65, twice with another attribute between', () => {
    const NONE = { flag: () => undefined, segment: () => undefined };
    let reads = 0;
    const user = {
      key: 'u',
      plan: 'pro',
      get age() {
        reads++;
        return 30;
      },
    };
    const flag = (clauses: Clause[]) =>
      compileFlag({
        key: 'f',
        type: 'string',
        enabled: true,
        variants: { on: 'on', off: 'off' },
        offVariant: 'off',
        rules: [{ id: 'r', clauses, serve: { variant: 'on' } }],
        fallthrough: { variant: 'off' },
      } as never);
    const age = (op: ClauseOperator, v: number): Clause => ({ attribute: 'age', op, values: [v] });
    expect(
      evaluateVariant(
        flag([age('greaterThanOrEqual', 18), age('lessThan', 65)]),
        user as never,
        NONE as never,
      ),
    ).toBe(0);
    expect(reads).toBe(1);
    reads = 0;
    evaluateVariant(
      flag([
        age('greaterThanOrEqual', 18),
        { attribute: 'plan', op: 'in', values: ['pro'] },
        age('lessThan', 65),
      ]),
      user as never,
      NONE as never,
    );
    expect(reads).toBe(2);
  });
});
