/**
 * Seeded request generation for the HTTP fuzzer (`test/integration/hostile/fuzz-http.test.ts`). Every case
 * is derived from (seed, case id) alone, so a failing case can be replayed on its own
 * with `FUZZ_SEED=<seed> FUZZ_ONLY=<id>`.
 *
 * Safety rule (so "data unchanged" can be asserted): a request that carries (anything close
 * to) a full-access key with a method other than GET/HEAD/OPTIONS is "guarded": it only
 * ever carries a body that every validator rejects (POST/PATCH may then target anything,
 * the existing flag included), a guarded DELETE or other method never names the existing
 * flag, and raw mangling never touches the body of a guarded request (a prefix of an
 * invalid object body is no valid object).
 */
import { Rng } from './prng.js';
import { KEYS } from './server.js';

/** A per-case seed: murmur3's finalizer over (seed, id). */
export function caseSeed(seed: number, id: number): number {
  let h = (seed ^ Math.imul(id + 1, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

// ---------------------------------------------------------------- vocabulary

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const PRINTABLE = `${ALNUM} !"#$%&'()*+,-./:;<=>?@[\\]^_\`{|}~`;
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
export const MIB = 1024 * 1024;

export const FULL_KEYS: readonly string[] = [KEYS.acmeProdFull, KEYS.acmeStageFull, KEYS.otherFull];
const READ_KEY = KEYS.acmeProdRead;
/** The admin token of the fuzzed server, so the admin API is reached past its 401. */
export const FUZZ_ADMIN_TOKEN = 'fw_admin_Fuzz0000000000000000000000000000';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** The only flag that exists while the fuzzer runs (acme/production). */
const EXISTING_FLAG = 'seeded';

const deepCache = new Map<string, string>();
/** `[[[...]]]` or `{"a":{"a":...}}`, `depth` levels. */
export function deep(kind: 'array' | 'object', depth: number): string {
  const id = `${kind}:${depth}`;
  let text = deepCache.get(id);
  if (text === undefined) {
    text =
      kind === 'array'
        ? '['.repeat(depth) + ']'.repeat(depth)
        : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    deepCache.set(id, text);
  }
  return text;
}

function deepValue(r: Rng): string {
  return deep(r.pick(['array', 'object'] as const), r.pick([100, 20_000, 100_000, 100_000]));
}

/** Percent-decodes once, leniently (what a router could end up matching). */
function lenientDecode(text: string): string {
  return text.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) =>
    String.fromCharCode(Number.parseInt(hex, 16)),
  );
}

/** Whether `target` could name the existing flag (any case, encoded or not). */
function mayNameExistingFlag(target: string): boolean {
  return (
    target.toLowerCase().includes(EXISTING_FLAG) ||
    lenientDecode(target).toLowerCase().includes(EXISTING_FLAG)
  );
}

// ---------------------------------------------------------------- request model

export interface Req {
  method: string;
  /** The request target exactly as written on the request line. */
  target: string;
  /** Headers in order (values are byte strings; latin1). Host/framing headers are added by `serialize`. */
  headers: Array<[string, string]>;
  body: Buffer | undefined;
  /** `length`: Content-Length added; `chunked`: body sent chunked; `custom`: headers already frame the body. */
  framing: 'length' | 'chunked' | 'custom';
  /** Send a Host header (false: omitted entirely). */
  host: boolean;
  version: string;
  notes: string[];
}

export type Transport = 'fetch' | 'node' | 'raw';

export interface FuzzCase {
  id: number;
  family: 'structured' | 'validation' | 'framing' | 'mangled' | 'garbage' | 'pipelined-known';
  transport: Transport;
  notes: string[];
  /** Structured form, for fetch and node:http. */
  req: Req | undefined;
  /** The bytes on the wire (raw transport; also the failure preview for the others). */
  raw: Buffer[];
  /** Methods of the requests in `raw`, in order (HEAD framing). */
  methods: string[];
  halfClose: boolean;
  /** Full-access key with a mutating method: must never be answered 2xx. */
  guarded: boolean;
  /** The server may close without answering (large uploads, client aborts, raw bytes). */
  mayClose: boolean;
  /** node:http: send this many body bytes, then give up. */
  abortAfterBytes: number | undefined;
  /** Pipelined [well-formed request, garbage]: the status the first request must get. */
  expectFirstStatus: number | undefined;
}

// ---------------------------------------------------------------- methods

function genMethod(r: Rng): string {
  return r.weighted<string>([
    [40, () => r.pick(['GET', 'GET', 'GET', 'HEAD', 'OPTIONS'])],
    [30, () => r.pick(['POST', 'POST', 'PATCH', 'PATCH', 'DELETE', 'PUT'])],
    [
      7,
      () =>
        r.pick([
          'PROPFIND',
          'QUERY',
          'TRACE',
          'MKCOL',
          'LOCK',
          'PURGE',
          'REPORT',
          'SEARCH',
          'LINK',
          'COPY',
          'SUBSCRIBE',
          'M-SEARCH',
          'ACL',
          'SOURCE',
        ]),
    ],
    [8, () => r.pick(['get', 'post', 'patch', 'delete', 'options', 'head', 'Get', 'PaTcH', 'dElEtE'])],
    [
      8,
      () =>
        r.weighted<string>([
          [4, () => r.pick(['FOO', 'GETS', 'G3T', 'BREW', 'POSTT', 'DEL', 'HTTP', 'PRI'])],
          [4, () => r.str(UPPER, r.range(1, 12))],
          [1, () => 'X'.repeat(r.pick([64, 1000, 9000]))],
        ]),
    ],
    [4, () => r.pick(['GET/', 'GE\tT', 'G\u00c9T', '', '@@', 'GET\u0000', '"GET"', '{}', 'GET:', 'G:E'])],
  ]);
}

// ---------------------------------------------------------------- targets

function flagKeySegment(r: Rng): string {
  return r.weighted<string>([
    [20, () => EXISTING_FLAG],
    [20, () => `fz-${r.int(1_000_000)}`],
    [4, () => r.pick(['SEEDED', 'Seeded', '%73eeded', 'se%65ded', 'seeded%00', 'seeded.', 'seeded%20'])],
    [
      10,
      () =>
        r.pick([
          '__proto__',
          'constructor',
          'prototype',
          'toString',
          'hasOwnProperty',
          'valueOf',
          '__defineGetter__',
        ]),
    ],
    [
      12,
      () =>
        r.pick([
          '..',
          '.',
          '%2e%2e',
          '%2E',
          '...',
          '-a',
          '_a',
          'a%20b',
          'a%2Fb',
          'a%5Cb',
          '%00',
          '%E0%A4',
          '%E0%A4%A',
          '%',
          '%%',
          '%zz',
          '%C0%AF',
          '%ED%A0%80',
          '%F0%9F%98%80',
          '%uD83D',
          '%FF%FE',
          '%0d%0aX-Injected:%201',
        ]),
    ],
    [4, () => r.pick(['\u043a\u043b\u044e\u0447', '\u{1f600}', '\u65e5\u672c', '\u202e', 'a\u0000b', 'a b'])],
    [4, () => 'a'.repeat(r.pick([128, 129, 1000, 5000]))],
    [6, () => r.str(PRINTABLE, r.range(1, 40))],
    [3, () => encodeURIComponent(r.str('\u00e9\u4e2d\u{1f600}x', r.range(1, 6)))],
  ]);
}

function webhookIdSegment(r: Rng): string {
  return r.weighted<string>([
    [30, () => `wh_${r.str(ALNUM, 16)}`],
    [5, () => r.pick(['__proto__', 'constructor', '%E0%A4', 'wh_', '%00', '..'])],
    [3, () => 'x'.repeat(r.pick([200, 3000]))],
  ]);
}

/** A route that takes `method`, so the request gets past routing and method checks. */
function routeFor(r: Rng, method: string): string {
  switch (method.toUpperCase()) {
    case 'POST':
      return r.pick(['/api/v1/flags', '/api/v1/webhooks']);
    case 'PATCH':
    case 'DELETE':
      return r.pick([`/api/v1/flags/${flagKeySegment(r)}`, `/api/v1/webhooks/${webhookIdSegment(r)}`]);
    default:
      return r.pick([
        '/api/v1/flags',
        `/api/v1/flags/${flagKeySegment(r)}`,
        '/api/v1/webhooks',
        `/api/v1/webhooks/${webhookIdSegment(r)}`,
        '/api/v1/sdk/flags',
        '/sdk/events',
      ]);
  }
}

/** OFREP's paths (`docs/protocol.md` §11): evaluations never change data, so any body may go. */
function ofrepTarget(r: Rng): string {
  return r.pick([
    '/ofrep/v1/evaluate/flags',
    `/ofrep/v1/evaluate/flags/${flagKeySegment(r)}`,
    '//ofrep/v1/evaluate/flags/seeded',
    `/ofrep/v1/evaluate/flags?flagConfigEtag=${r.str(ALNUM, 8)}`,
    `/ofrep/v1/events?token=${r.pick(['', 'x', 'a.b.c.d', `${r.str(ALNUM, 20)}.key_0.99999999.${r.str(ALNUM, 43)}`])}`,
    '/ofrep/v1/events',
    '/ofrep/v1/evaluate',
    '/ofrep/v2/evaluate/flags',
  ]);
}

/**
 * The dashboard's paths (`docs/protocol.md` §10): the page, its files and the admin API. A
 * guarded request (the admin token counts as a full key) never signs out (a 2xx that changes nothing).
 */
function adminTarget(r: Rng, guarded: boolean): string {
  const env = r.pick([
    'acme/production',
    'acme/staging',
    'nope/nope',
    `${flagKeySegment(r)}/${flagKeySegment(r)}`,
  ]);
  return r.pick([
    '/index.html',
    '/dashboard/app.js',
    '/dashboard/nope.js',
    '/dashboard/../package.json',
    guarded ? '/admin/api/overview' : '/admin/api/session',
    '/admin/api/overview',
    '/admin/api/projects',
    `/admin/api/projects/${flagKeySegment(r)}/environments`,
    `/admin/api/environments/${env}/flags`,
    `/admin/api/environments/${env}/flags/${flagKeySegment(r)}`,
    `/admin/api/environments/${env}/keys`,
    `/admin/api/environments/${env}/keys/key_${r.str(ALNUM, 16)}`,
    `/admin/api/environments/${env}/history?flag=${flagKeySegment(r)}&limit=${r.pick(['1', '0', '1001', 'x', '-1'])}`,
    `/admin/api/environments/${env}/webhooks`,
    '/admin/api/environments/acme',
    '/admin/api/nope',
  ]);
}

function genTarget(r: Rng, method: string, avoidExisting: boolean): string {
  let target = r.weighted<string>([
    [45, () => routeFor(r, method)],
    [14, () => '/api/v1/flags'],
    [22, () => `/api/v1/flags/${flagKeySegment(r)}`],
    [8, () => '/api/v1/webhooks'],
    [8, () => `/api/v1/webhooks/${webhookIdSegment(r)}`],
    [6, () => r.pick(['/api/v1/sdk/flags', '/sdk/flags'])],
    [6, () => r.pick(['/sdk/events', '/sdk/stream', '/api/v1/sdk/events', '/api/v1/sdk/stream'])],
    [8, () => adminTarget(r, avoidExisting)],
    [6, () => ofrepTarget(r)],
    [
      10,
      () =>
        r.pick([
          '/',
          '/api',
          '/api/v1',
          '/api/v1/',
          '/api/v2/flags',
          '/API/V1/FLAGS',
          '/api/v1/Flags',
          '/api/v1/flags/a/b',
          '/api/v1/%66lags',
          '/favicon.ico',
          '/.env',
          '/sdk',
          '/sdk/flags/extra',
          '/api/v1/sdk',
          '*',
          '?x=1',
          'flags',
          '/api/v1/flags;jsessionid=1',
        ]),
    ],
  ]);
  const notes: string[] = [];
  if (r.chance(0.08)) target += '/';
  if (r.chance(0.05)) target = target.replace('/', '//');
  if (r.chance(0.05))
    target = target.replace(/\/([^/]*)$/, r.pick(['/./$1', '/x/../$1', '/%2e%2e/$1', '/../$1']));
  if (r.chance(0.03)) target = target.replaceAll('/', '\\');
  if (r.chance(0.05)) {
    const i = r.int(target.length);
    const code = target.charCodeAt(i);
    target = `${target.slice(0, i)}%${code.toString(16).padStart(2, '0').slice(-2).toUpperCase()}${target.slice(i + 1)}`;
  }
  if (r.chance(0.18)) {
    target += r.pick([
      '?',
      '?a=1',
      '?lastEventId=x:1',
      '?lastEventId=%E0%A4',
      '?lastEventId=:::::99999999999999999999',
      '?%',
      '?a=%zz&b',
      `?q=${'q'.repeat(5000)}`,
      '?__proto__[polluted]=yes',
      '?constructor[prototype][polluted]=yes',
      '?a=1&a=2&a=3',
    ]);
  }
  if (r.chance(0.03)) target += '#frag';
  if (r.chance(0.05)) {
    target = `${r.pick(['http://127.0.0.1', 'HTTP://example.com:80', 'https://x', 'http://', 'ftp://x', 'http://a@b'])}${target}`;
  }
  if (r.chance(0.02)) target += `/${'a'.repeat(r.pick([2000, 9000, 20_000, 70_000]))}`;
  if (r.chance(0.03)) target += r.pick(['\u00e9', '\u{1f600}', '\u043a\u043b\u044e\u0447', '\u202e']);
  if (r.chance(0.02)) target += r.pick(['\u0000', '\u0001', '\u007f', '\t', ' ', '\r', '\n']);
  if (avoidExisting && mayNameExistingFlag(target)) {
    target = '/api/v1/flags/fz-guarded';
    notes.push('target replaced (guard)');
  }
  return target;
}

// ---------------------------------------------------------------- Authorization

function bearer(r: Rng, key: string): string {
  const scheme = r.pick(['Bearer', 'Bearer', 'bearer', 'BEARER', 'BeArEr']);
  const gap = r.pick([' ', ' ', '  ', '\t', ' \t']);
  const tail = r.pick(['', '', '', ' ', '\t']);
  return `${scheme}${gap}${key}${tail}`;
}

/** Authorization header values (one header per value; none when empty). */
function genAuth(r: Rng): { values: string[]; label: string } {
  return r.weighted<{ values: string[]; label: string }>([
    [12, () => ({ values: [], label: 'no auth' })],
    [30, () => ({ values: [bearer(r, r.pick(FULL_KEYS))], label: 'full key' })],
    [12, () => ({ values: [bearer(r, READ_KEY)], label: 'read key' })],
    [8, () => ({ values: [bearer(r, FUZZ_ADMIN_TOKEN)], label: 'admin token' })],
    [
      24,
      () => {
        const full = r.pick(FULL_KEYS);
        const value = r.pick([
          'Bearer',
          'Bearer ',
          `Bearer ${full}x`,
          `Bearer ${full.slice(0, -1)}`,
          `Bearer ${full.toLowerCase()}`,
          `Bearer ${full.toUpperCase()}`,
          `Basic ${Buffer.from(`user:${full}`).toString('base64')}`,
          `Token ${full}`,
          full,
          `Bearer ${full} extra`,
          `Bearer ${full},Bearer ${full}`,
          `Bearer fw_live_${r.str(ALNUM, 32)}`,
          `Bearer fw_live_${r.str(ALNUM, 31)}`,
          `Bearer fw_test_${r.str(ALNUM, 32)}`,
          `Bearer ${'a'.repeat(r.pick([100, 10_000]))}`,
          `Bearer\u00a0${full}`,
          `Bearer ${full}\u00a0`,
          `Bearer "${full}"`,
          `Bearer ${r.str(PRINTABLE, 40)}`,
          'null',
          'undefined',
          '',
        ]);
        return { values: [value], label: 'bad auth' };
      },
    ],
    [
      6,
      () => ({
        values: [String.fromCharCode(...r.bytes(r.range(1, 60)).map((b) => (b === 10 || b === 13 ? 32 : b)))],
        label: 'garbage auth',
      }),
    ],
    [
      6,
      () => {
        const full = bearer(r, r.pick(FULL_KEYS));
        const bad = `Bearer fw_live_${r.str(ALNUM, 32)}`;
        return { values: r.chance(0.5) ? [full, bad] : [bad, full], label: 'duplicate auth' };
      },
    ],
  ]);
}

/** Conservative: anything close to a full key (one mangled byte away) counts as one. */
function carriesFullKey(values: readonly string[]): boolean {
  return values.some((value) =>
    [...FULL_KEYS, FUZZ_ADMIN_TOKEN].some((key) =>
      value.toLowerCase().includes(key.slice(0, 20).toLowerCase()),
    ),
  );
}

// ---------------------------------------------------------------- bodies

const json = (text: string) => Buffer.from(text, 'utf8');

/** A body every validator (create/update flag, create/update webhook) rejects. */
export function invalidBody(r: Rng): { body: Buffer; label: string } {
  const d = () => deepValue(r);
  return r.weighted<{ body: Buffer; label: string }>([
    [
      8,
      () => ({
        label: 'non-object JSON',
        body: json(
          r.pick([
            '[]',
            '"x"',
            '0',
            '-0',
            '1e999',
            '-1e999',
            'null',
            'true',
            'false',
            '""',
            '[{}]',
            '[{"key":"a","type":"boolean"}]',
            '123456789012345678901234567890',
          ]),
        ),
      }),
    ],
    [5, () => ({ label: 'deeply nested top level', body: json(d()) })],
    [
      8,
      () => ({
        label: 'invalid JSON syntax',
        body: json(
          r.pick([
            '',
            ' ',
            '\n',
            '{',
            '}',
            '{"key":',
            '{"key":"a",}',
            "{'key':'a'}",
            '{"key":NaN}',
            '{"key":Infinity}',
            '{key:"a"}',
            '{"a":1}//',
            '/**/{}',
            'nul',
            '\u0000',
            '{"key":"a"}{"key":"b"}',
            '[1,2',
            '{"a":"\\u12"}',
            '{"a":"\\x41"}',
            '{"a":01}',
            '{"a":.5}',
            '{"a":"\t"}',
            '{"a":1,,}',
            '\ufeff\ufeff{}',
            '{"a":"\\\\\\"}',
          ]),
        ),
      }),
    ],
    [4, () => ({ label: 'random printable', body: json(r.str(PRINTABLE, r.range(1, 200))) })],
    [3, () => ({ label: 'random bytes', body: r.bytes(r.range(1, 300)) })],
    [
      6,
      () => ({
        label: 'invalid UTF-8',
        body: Buffer.concat([
          json('{"key":"'),
          Buffer.from(
            r.pick([
              [0xff],
              [0xfe, 0xff],
              [0xc0, 0xaf],
              [0xed, 0xa0, 0x80],
              [0xe0, 0xa4],
              [0xf8, 0x88, 0x80, 0x80, 0x80],
              [0x80],
              [0xf4, 0x90, 0x80, 0x80],
            ]),
          ),
          json('","type":"boolean"}'),
        ]),
      }),
    ],
    [
      2,
      () => ({
        label: 'UTF-16',
        body: Buffer.concat([
          Buffer.from(r.pick([[0xff, 0xfe], []])),
          Buffer.from('{"key":"fz-u16","type":"boolean"}', 'utf16le'),
        ]),
      }),
    ],
    [
      3,
      () => ({
        label: 'BOM + wrong shape',
        body: json(`\ufeff${r.pick(['[]', '{"key":"-x","type":"boolean"}', '{"zz":1}', '"{}"'])}`),
      }),
    ],
    [
      10,
      () => {
        const bad = r.pick([
          '""',
          '"-a"',
          '"_a"',
          '"a b"',
          '"a/b"',
          JSON.stringify('a'.repeat(129)),
          '123',
          'null',
          '[]',
          '{}',
          'true',
          d(),
          JSON.stringify('\u043a\u043b\u044e\u0447'),
          JSON.stringify('\u{1f600}'),
          '"__proto__"',
          '"a\\u0000"',
          JSON.stringify('x'.repeat(200_000)),
        ]);
        return { label: 'bad key', body: json(`{"key":${bad},"type":"boolean"}`) };
      },
    ],
    [
      8,
      () => {
        if (r.chance(0.1)) return { label: 'missing type', body: json('{"key":"fz-shape"}') };
        const bad = r.pick([
          '"Boolean"',
          '"bool"',
          '""',
          '1',
          'null',
          'true',
          '[]',
          '{}',
          d(),
          d(),
          JSON.stringify('t'.repeat(100_000)),
          '"rollout "',
        ]);
        return { label: 'bad type', body: json(`{"key":"fz-shape","type":${bad}}`) };
      },
    ],
    [
      6,
      () => {
        const bad = r.pick([
          '101',
          '-1',
          '1.5',
          '1e400',
          '-1e400',
          '"50"',
          'null',
          '[50]',
          '1e21',
          '100.5',
          '{}',
          'true',
          '-0.5',
          '9007199254740993',
          `${'9'.repeat(400)}`,
          d(),
        ]);
        return {
          label: 'bad percentage',
          body: json(`{"key":"fz-shape","type":"rollout","percentage":${bad}}`),
        };
      },
    ],
    [
      3,
      () => ({
        label: 'percentage on boolean',
        body: json(`{"key":"fz-shape","type":"boolean","percentage":${r.pick(['0', '50', '100'])}}`),
      }),
    ],
    [
      4,
      () => {
        const bad = r.pick(['"true"', '1', '0', 'null', '[]', '{}', d()]);
        return { label: 'bad enabled', body: json(`{"key":"fz-shape","type":"boolean","enabled":${bad}}`) };
      },
    ],
    [
      4,
      () => {
        const bad = r.pick([JSON.stringify('d'.repeat(1001)), '5', 'true', '[]', '{}', d()]);
        return {
          label: 'bad description',
          body: json(`{"key":"fz-shape","type":"boolean","description":${bad}}`),
        };
      },
    ],
    [
      6,
      () => ({
        label: 'unknown / __proto__ field',
        body: json(
          r.pick([
            '{"__proto__":{"polluted":"yes"}}',
            '{"key":"fz-shape","type":"boolean","__proto__":{"polluted":"yes"}}',
            '{"constructor":{"prototype":{"polluted":"yes"}}}',
            '{"key":"fz-shape","type":"boolean","constructor":{"prototype":{"polluted":"yes"}}}',
            '{"key":"fz-shape","type":"boolean","extra":1}',
            '{"url":"http://127.0.0.1:9/","events":["flag.updated"],"__proto__":{"polluted":"yes"}}',
            '{"key":"fz-shape","type":"boolean","id":"x"}',
            '{"":1}',
            '{"key":"fz-shape","type":"boolean","key ":"x"}',
          ]),
        ),
      }),
    ],
    [
      3,
      () => ({
        label: 'duplicate JSON keys',
        body: json(
          r.pick([
            '{"type":"boolean","key":"fz-dup","key":"-bad"}',
            '{"key":"fz-dup","type":"boolean","type":"nope"}',
          ]),
        ),
      }),
    ],
    [
      6,
      () => {
        const bad = r.pick([
          '"ftp://x/"',
          '"not a url"',
          '"http://u:p@127.0.0.1/"',
          '"javascript:alert(1)"',
          '""',
          '5',
          'null',
          '[]',
          JSON.stringify(`http://x/${'a'.repeat(3000)}`),
          '"//x"',
          '"http:"',
          '"file:///etc/passwd"',
          d(),
          '"http://[::1"',
        ]);
        return { label: 'bad webhook url', body: json(`{"url":${bad},"events":["flag.updated"]}`) };
      },
    ],
    [
      6,
      () => {
        const bad = r.pick([
          '[]',
          '["flag.updated","flag.updated"]',
          '["nope"]',
          '"flag.updated"',
          '[null]',
          '[1]',
          'null',
          '{}',
          `[${d()}]`,
          `[${d()}]`,
          d(),
          '["FLAG.UPDATED"]',
          `["flag.updated",${d()}]`,
        ]);
        return { label: 'bad webhook events', body: json(`{"url":"http://127.0.0.1:9/h","events":${bad}}`) };
      },
    ],
    [1, () => ({ label: 'webhook without events', body: json('{"url":"http://127.0.0.1:9/h"}') })],
    [
      3,
      () => {
        const size = MIB + r.range(1, 50_000);
        const text = `{"key":"fz-big","type":"boolean","description":"${'x'.repeat(size)}"}`;
        return { label: 'over 1 MiB', body: json(text) };
      },
    ],
    [
      1,
      () => {
        const prefix = '{"key":"fz-big","type":"boolean","description":"';
        const text = `${prefix}${'x'.repeat(MIB - prefix.length - 2)}"}`;
        return { label: 'exactly 1 MiB (description too long)', body: json(text) };
      },
    ],
  ]);
}

/** A deeply nested value in a field a validator inspects (still an invalid body everywhere). */
function deepInValidatedField(r: Rng): { body: Buffer; label: string } {
  const d = deep(r.pick(['array', 'object'] as const), r.pick([5_000, 20_000, 100_000]));
  const [field, text] = r.pick([
    ['key', `{"key":${d},"type":"boolean"}`],
    ['type', `{"key":"fz-deep","type":${d}}`],
    ['percentage', `{"key":"fz-deep","type":"rollout","percentage":${d}}`],
    ['enabled', `{"key":"fz-deep","type":"boolean","enabled":${d}}`],
    ['description', `{"key":"fz-deep","type":"boolean","description":${d}}`],
    ['url', `{"url":${d},"events":["flag.updated"]}`],
    ['events', `{"url":"http://127.0.0.1:9/h","events":${d}}`],
    ['events[0]', `{"url":"http://127.0.0.1:9/h","events":[${d}]}`],
    ['events[1]', `{"url":"http://127.0.0.1:9/h","events":["flag.updated",${d}]}`],
    ['unknown field', `{"zz":${d}}`],
  ] as const);
  return { label: `deep value in "${field}"`, body: json(text) };
}

/** Bodies a full-access key could use to mutate (only ever sent without a full key). */
function validishBody(r: Rng): { body: Buffer; label: string } {
  return {
    label: 'valid-shaped body',
    body: json(
      r.pick([
        `{"key":"fz-v${r.int(1000)}","type":"boolean"}`,
        `{"key":"fz-v${r.int(1000)}","type":"rollout","percentage":50,"description":"d"}`,
        '{"enabled":false}',
        '{"enabled":true,"percentage":0}',
        '{"description":null}',
        '{}',
        '{"url":"http://127.0.0.1:9/h","events":["flag.updated"]}',
        '{"active":false}',
      ]),
    ),
  };
}

function contentType(r: Rng): string[] {
  return r.weighted<string[]>([
    [40, () => ['application/json']],
    [
      8,
      () => [
        r.pick(['application/json; charset=utf-8', 'APPLICATION/JSON', 'application/json;charset=UTF-16']),
      ],
    ],
    [6, () => [r.pick(['application/merge-patch+json', 'application/vnd.api+json', 'application/+json'])]],
    [
      10,
      () => [
        r.pick([
          'text/plain',
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=x',
          'text/json',
          'application/jsonp',
          'json',
          'application/json, text/plain',
          '',
          ';',
          '/',
          'application/',
        ]),
      ],
    ],
    [8, () => []],
    [4, () => [r.str(PRINTABLE, r.range(1, 60))]],
    [4, () => ['text/plain', 'application/json']],
  ]);
}

// ---------------------------------------------------------------- structured requests

function extraHeaders(r: Rng): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  if (r.chance(0.1)) out.push(['Accept', r.pick(['application/json', 'text/event-stream', '*/*', 'x'])]);
  if (r.chance(0.05)) out.push(['Origin', r.pick(['http://evil.example', 'null', 'x'])]);
  if (r.chance(0.08)) {
    out.push([
      'Last-Event-ID',
      r.pick(['x:1', ':', '::::', `${'9'.repeat(40)}`, 'a'.repeat(3000), '\u00ff\u00fe', '0', '-1']),
    ]);
  }
  if (r.chance(0.05))
    out.push(['If-None-Match', r.pick(['*', '"x"', 'W/"x"', ',,,', '"', 'a'.repeat(2000)])]);
  if (r.chance(0.05)) {
    out.push(['Content-Encoding', r.pick(['gzip', 'br', 'identity', 'IDENTITY', 'deflate, gzip', 'x', ''])]);
  }
  if (r.chance(0.03)) out.push(['X-Pad', 'p'.repeat(r.pick([8000, 20_000, 80_000]))]);
  if (r.chance(0.02)) {
    const count = r.pick([100, 500, 3000]);
    for (let i = 0; i < count; i++) out.push([`X-H${i}`, 'v']);
  }
  if (r.chance(0.03)) out.push(['Cookie', `a=${'c'.repeat(r.pick([10, 5000]))}`]);
  if (r.chance(0.03)) out.push(['X-Forwarded-For', '127.0.0.1, ::1, garbage']);
  return out;
}

/** Guarded methods other than POST/PATCH (which only ever carry invalid bodies) must not name the existing flag. */
function mustAvoidExisting(guarded: boolean, method: string): boolean {
  return guarded && !['POST', 'PATCH'].includes(method.toUpperCase());
}

function structuredRequest(r: Rng): { req: Req; guarded: boolean } {
  const notes: string[] = [];
  const method = genMethod(r);
  const auth = genAuth(r);
  notes.push(
    `method ${JSON.stringify(method.length > 20 ? `${method.slice(0, 20)}...` : method)}`,
    auth.label,
  );
  const guarded = carriesFullKey(auth.values) && !SAFE_METHODS.has(method.toUpperCase());
  if (guarded) notes.push('guarded');
  const target = genTarget(r, method, mustAvoidExisting(guarded, method));
  const headers: Array<[string, string]> = auth.values.map((value) => ['Authorization', value]);
  const wantsBody = ['POST', 'PATCH', 'PUT'].includes(method.toUpperCase()) ? r.chance(0.85) : r.chance(0.1);
  let body: Buffer | undefined;
  if (wantsBody) {
    const chosen = guarded || r.chance(0.5) ? invalidBody(r) : validishBody(r);
    body = chosen.body;
    notes.push(`${chosen.label} (${body.length} B)`);
    for (const type of contentType(r)) headers.push(['Content-Type', type]);
  } else if (r.chance(0.05)) {
    headers.push(['Content-Type', 'application/json']);
  }
  headers.push(...extraHeaders(r));
  const req: Req = {
    method,
    target,
    headers,
    body,
    framing: 'length',
    host: true,
    version: 'HTTP/1.1',
    notes,
  };
  return { req, guarded };
}

function chunkEncode(r: Rng, body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let offset = 0;
  while (offset < body.length) {
    const size = Math.min(body.length - offset, r.pick([1, 7, 100, 4096, 65_536, body.length]));
    parts.push(
      Buffer.from(`${size.toString(16)}\r\n`, 'latin1'),
      body.subarray(offset, offset + size),
      Buffer.from('\r\n'),
    );
    offset += size;
  }
  parts.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(parts);
}

/** The request as bytes: [head, body]. */
export function serialize(r: Rng, req: Req): [Buffer, Buffer] {
  let head = `${req.method} ${req.target}${req.version ? ` ${req.version}` : ''}\r\n`;
  if (req.host) head += 'Host: 127.0.0.1\r\n';
  for (const [name, value] of req.headers) head += `${name}: ${value}\r\n`;
  let body = req.body ?? Buffer.alloc(0);
  if (req.framing === 'length' && req.body !== undefined) head += `Content-Length: ${body.length}\r\n`;
  if (req.framing === 'chunked') {
    head += 'Transfer-Encoding: chunked\r\n';
    body = chunkEncode(r, body);
  }
  head += '\r\n';
  // Byte strings: code points above 0xFF (unicode paths, names) go out as UTF-8.
  const headBytes = /[^\u0000-\u00ff]/.test(head) ? Buffer.from(head, 'utf8') : Buffer.from(head, 'latin1');
  return [headBytes, body];
}

// ---------------------------------------------------------------- transports

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const FETCH_HEADERS = new Set([
  'authorization',
  'content-type',
  'content-encoding',
  'last-event-id',
  'if-none-match',
  'accept',
  'origin',
  'x-pad',
  'x-forwarded-for',
  'cookie',
]);

function fetchable(req: Req): boolean {
  if (!TOKEN.test(req.method) || ['CONNECT', 'TRACE', 'TRACK'].includes(req.method.toUpperCase()))
    return false;
  if (req.body !== undefined && ['GET', 'HEAD'].includes(req.method.toUpperCase())) return false;
  if (req.framing !== 'length' || !req.host || req.version !== 'HTTP/1.1') return false;
  if (!req.target.startsWith('/') || req.target.startsWith('//') || /[\u0000-\u0020\\#]/.test(req.target)) {
    return false;
  }
  const seen = new Set<string>();
  for (const [name, value] of req.headers) {
    const lower = name.toLowerCase();
    if (seen.has(lower) || !FETCH_HEADERS.has(lower)) return false;
    seen.add(lower);
    if (/[^\t\u0020-\u007e\u0080-\u00ff]/.test(value) || value !== value.trim()) return false;
  }
  return true;
}

function nodeable(req: Req): boolean {
  if (!TOKEN.test(req.method) || req.method.toUpperCase() === 'CONNECT') return false;
  if (req.framing === 'custom' || req.version !== 'HTTP/1.1') return false;
  if (/[^\u0021-\u00ff]/.test(req.target)) return false;
  for (const [name, value] of req.headers) {
    if (!TOKEN.test(name) || /[^\t\u0020-\u007e\u0080-\u00ff]/.test(value)) return false;
  }
  return true;
}

function baseCase(id: number, family: FuzzCase['family'], notes: string[]): FuzzCase {
  return {
    id,
    family,
    transport: 'raw',
    notes,
    req: undefined,
    raw: [],
    methods: [],
    halfClose: true,
    guarded: false,
    mayClose: true,
    abortAfterBytes: undefined,
    expectFirstStatus: undefined,
  };
}

function bigUpload(req: Req): boolean {
  return (req.body?.length ?? 0) > 512 * 1024;
}

// ---------------------------------------------------------------- families

function structuredCase(r: Rng, id: number): FuzzCase {
  const { req, guarded } = structuredRequest(r);
  const c = baseCase(id, 'structured', req.notes);
  c.req = req;
  c.guarded = guarded;
  const options: Transport[] = ['raw'];
  if (nodeable(req)) options.push('node', 'node');
  if (fetchable(req)) options.push('fetch', 'fetch', 'fetch');
  c.transport = r.pick(options);
  if (c.transport === 'node' && req.body !== undefined && req.body.length > 1 && r.chance(0.35)) {
    req.framing = 'chunked';
    req.notes.push('chunked');
  }
  if (c.transport === 'node' && req.body !== undefined && req.body.length > 1 && r.chance(0.06)) {
    c.abortAfterBytes = r.range(1, req.body.length - 1);
    req.notes.push(`client aborts after ${c.abortAfterBytes} B`);
  }
  if (c.transport === 'raw' && req.body !== undefined && r.chance(0.2)) req.framing = 'chunked';
  c.raw = serialize(r, req);
  c.methods = [req.method];
  c.mayClose = c.transport === 'raw' || bigUpload(req) || c.abortAfterBytes !== undefined;
  c.notes.push(`via ${c.transport}`);
  return c;
}

/** Content-Length / Transfer-Encoding / Host / Expect games: node:http where it can, raw otherwise. */
function framingCase(r: Rng, id: number): FuzzCase {
  const { req, guarded } = structuredRequest(r);
  const c = baseCase(id, 'framing', req.notes);
  c.req = req;
  c.guarded = guarded;
  const body = req.body ?? json('{"key":"fz-frame"}');
  if (req.body === undefined) {
    req.body = body;
    req.notes.push('added body {"key":"fz-frame"}');
  }
  const trick = r.weighted<string>([
    [10, () => 'chunked'],
    [10, () => 'cl-short'],
    [8, () => 'cl-long'],
    [10, () => 'cl-weird'],
    [6, () => 'cl-dup'],
    [10, () => 'te-weird'],
    [6, () => 'te+cl'],
    [8, () => 'bad-chunks'],
    [6, () => 'no-host'],
    [6, () => 'host-games'],
    [8, () => 'expect'],
    [4, () => 'upgrade'],
    [4, () => 'connection'],
  ]);
  req.notes.push(`framing: ${trick}`);
  const h = req.headers;
  const custom = (...headers: Array<[string, string]>) => {
    req.framing = 'custom';
    h.push(...headers);
  };
  switch (trick) {
    case 'chunked':
      req.framing = 'chunked';
      break;
    case 'cl-short':
      // The rest of the body is read as the next request.
      custom(['Content-Length', String(r.int(body.length))]);
      break;
    case 'cl-long':
      custom(['Content-Length', String(body.length + r.range(1, 1000))]);
      break;
    case 'cl-weird':
      custom([
        'Content-Length',
        r.pick([
          '-1',
          '1e3',
          `+${body.length}`,
          ` ${body.length}`,
          `${body.length} `,
          '0x10',
          `${body.length}, ${body.length}`,
          '99999999999999999999999',
          '18446744073709551616',
          'abc',
          '',
          `${body.length}.0`,
          '2000000',
          String(MIB + 1),
          String(MIB),
        ]),
      ]);
      break;
    case 'cl-dup': {
      const n = String(body.length);
      custom(['Content-Length', n], ['Content-Length', r.pick([n, String(body.length + 1), '0'])]);
      break;
    }
    case 'te-weird':
      req.framing = 'custom';
      h.push([
        'Transfer-Encoding',
        r.pick([
          'chunked, chunked',
          'gzip',
          'gzip, chunked',
          'identity',
          'Chunked',
          'chunked ',
          '\tchunked',
          'chunked;q=1',
          'xchunked',
          '',
        ]),
      ]);
      req.body = chunkEncode(r, body);
      break;
    case 'te+cl':
      custom(['Transfer-Encoding', 'chunked'], ['Content-Length', String(body.length)]);
      req.body = chunkEncode(r, body);
      break;
    case 'bad-chunks':
      custom(['Transfer-Encoding', 'chunked']);
      req.body = json(
        r.pick([
          `zz\r\n${body.toString('latin1')}\r\n0\r\n\r\n`,
          `${body.length.toString(16)};ext=1\r\n${body.toString('latin1')}\r\n0\r\n\r\n`,
          `${body.length.toString(16)}\r\n${body.toString('latin1')}0\r\n\r\n`,
          `ffffffffffffffffff\r\n${body.toString('latin1')}\r\n0\r\n\r\n`,
          `${body.length.toString(16)}\r\n${body.toString('latin1')}\r\n`,
          `${body.length.toString(16)}\r\n${body.toString('latin1')}\r\n0\r\nX-Trailer: 1\r\n\r\n`,
          `-1\r\n${body.toString('latin1')}\r\n0\r\n\r\n`,
          `${body.length.toString(16)}\n${body.toString('latin1')}\n0\n\n`,
          '0\r\n\r\n',
        ]),
      );
      break;
    case 'no-host':
      req.host = false;
      break;
    case 'host-games':
      req.host = false;
      for (const value of r.pick([['a', 'b'], [''], ['x'.repeat(5000)], ['127.0.0.1:99999'], ['[::1']])) {
        h.push(['Host', value]);
      }
      break;
    case 'expect':
      h.push(['Expect', r.pick(['100-continue', '100-Continue', 'foo', '200-ok', '', '100-continue, foo'])]);
      break;
    case 'upgrade':
      h.push(['Connection', 'Upgrade'], ['Upgrade', r.pick(['websocket', 'h2c', 'HTTP/2.0', 'x'])]);
      break;
    case 'connection':
      h.push(['Connection', r.pick(['close', 'keep-alive', 'Upgrade', 'x, y', '', 'close, close'])]);
      break;
  }
  // Truncating or lengthening the body must not make a guarded request valid (see file header):
  // a prefix of an invalid object body is still no valid object.
  const options: Transport[] = ['raw'];
  if (nodeable(req) && ['chunked', 'no-host'].includes(trick)) options.push('node', 'node');
  c.transport = r.pick(options);
  c.raw = serialize(r, req);
  c.methods = [req.method];
  c.halfClose = true;
  c.mayClose = c.transport === 'raw' || bigUpload(req);
  c.notes.push(`via ${c.transport}`);
  return c;
}

function mangle(r: Rng, head: Buffer, avoidExisting: boolean, notes: string[]): Buffer {
  let text = head.toString('latin1');
  const ops = r.range(1, 3);
  for (let i = 0; i < ops; i++) {
    const op = r.pick([
      'lf',
      'lf-one',
      'cr',
      'version',
      'spacing',
      'no-colon',
      'fold',
      'bad-name',
      'space-colon',
      'insert-bytes',
      'flip',
      'nul',
      'prefix',
    ]);
    notes.push(`mangle: ${op}`);
    switch (op) {
      case 'lf':
        text = text.replaceAll('\r\n', '\n');
        break;
      case 'lf-one': {
        const lines = text.split('\r\n');
        const at = r.int(Math.max(1, lines.length - 1));
        text = lines
          .map((line, j) => (j === at ? `${line}\n` : `${line}\r\n`))
          .join('')
          .slice(0, -2);
        break;
      }
      case 'cr':
        text = text.replace('\r\n', '\r');
        break;
      case 'version':
        text = text.replace(
          /HTTP\/1\.1\r/,
          `${r.pick(['HTTP/1.0', '', 'HTTP/0.9', 'HTTP/2.0', 'HTTP/1.1.1', 'http/1.1', 'HTTP/1', 'HTTP/11', 'HTTP/1.1 x', 'HTP/1.1', 'HTTP/1.1 ', 'HTTP/9.9'])}\r`,
        );
        break;
      case 'spacing':
        text = r.pick([
          () => text.replace(' ', '  '),
          () => text.replace(' ', '\t'),
          () => ` ${text}`,
          () => text.replace(/ HTTP/, '  HTTP'),
        ])();
        break;
      case 'no-colon':
        text = text.replace('\r\n', '\r\nNoColonHere\r\n');
        break;
      case 'fold':
        text = text.replace(/\r\n(?=[^\r])/, '\r\nX-Folded: a\r\n  continued\r\n');
        break;
      case 'bad-name':
        text = text.replace(
          '\r\n',
          `\r\n${r.pick(['X Bad', '(x)', '\u00e9t\u00e9', '', 'X\u0000Y', 'X\u007fY', '"q"'])}: v\r\n`,
        );
        break;
      case 'space-colon':
        text = text.replace(/\r\n([A-Za-z-]+):/, '\r\n$1 :');
        break;
      case 'insert-bytes': {
        const at = r.int(text.length);
        text = text.slice(0, at) + r.bytes(r.range(1, 8)).toString('latin1') + text.slice(at);
        break;
      }
      case 'flip': {
        const at = r.int(text.length);
        text = text.slice(0, at) + String.fromCharCode(r.int(256)) + text.slice(at + 1);
        break;
      }
      case 'nul': {
        const at = r.int(text.length);
        text = `${text.slice(0, at)}\u0000${text.slice(at)}`;
        break;
      }
      case 'prefix':
        text = r.pick(['\r\n', '\r\n\r\n', '\n', ' ', '\u0000', '\u0016\u0003\u0001']) + text;
        break;
    }
  }
  // A mangled head of a guarded DELETE must stay harmless: never let it name the existing flag.
  if (avoidExisting && mayNameExistingFlag(text)) text = text.replace(/seeded/gi, 'fz-guarded');
  return Buffer.from(text, 'latin1');
}

/** A structured request's bytes, mangled at the HTTP syntax level, maybe truncated or pipelined. */
function mangledCase(r: Rng, id: number): FuzzCase {
  const { req, guarded } = structuredRequest(r);
  const c = baseCase(id, 'mangled', req.notes);
  c.guarded = guarded;
  if (r.chance(0.2)) req.framing = 'chunked';
  const [head, body] = serialize(r, req);
  let bytes = Buffer.concat([mangle(r, head, mustAvoidExisting(guarded, req.method), c.notes), body]);
  const copies = r.chance(0.15) ? r.range(2, 4) : 1;
  if (copies > 1) c.notes.push(`pipelined x${copies}`);
  bytes = Buffer.concat(Array.from({ length: copies }, () => bytes));
  if (r.chance(0.2)) {
    const at = r.int(bytes.length);
    c.notes.push(`truncated at ${at}/${bytes.length}`);
    bytes = bytes.subarray(0, at);
  }
  if (r.chance(0.1)) {
    c.notes.push('trailing garbage');
    bytes = Buffer.concat([bytes, r.bytes(r.range(1, 64))]);
  }
  c.raw = [bytes];
  c.methods = Array.from({ length: copies }, () => req.method);
  return c;
}

const GARBAGE_LINES = [
  'GARBAGE\r\n\r\n',
  '\u0016\u0003\u0001\u0000\u00a5\u0001\u0000\u0000\u00a1\u0003\u0003',
  'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\u0000\u0000\u0000\u0004\u0000\u0000\u0000\u0000\u0000',
  'SSH-2.0-OpenSSH_9.6\r\n',
  'GET /\r\n',
  'GET /api/v1/flags\r\n\r\n',
  'GET / HTTP/1.1\r\nHost: x\r\nX: y',
  'GET / HTTP/1.1\r\nHost x\r\n\r\n',
  'GET / HTTP/1.1\nHost: x\n\n',
  ' / HTTP/1.1\r\n\r\n',
  'GET  HTTP/1.1\r\n\r\n',
  'HTTP/1.1 200 OK\r\n\r\n',
  '\r\n\r\n\r\n',
  '\u0000\u0000\u0000\u0000',
  '{"key":"fz","type":"boolean"}',
  'CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n',
  'CONNECT /api/v1/flags HTTP/1.1\r\nHost: x\r\n\r\n',
  'GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello',
  'OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n',
  'GET /sdk/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \r\n\r\n',
];

/** Bytes that are not HTTP at all, or barely. */
function garbageCase(r: Rng, id: number): FuzzCase {
  const c = baseCase(id, 'garbage', []);
  const bytes = r.weighted<Buffer>([
    [10, () => r.bytes(r.range(1, 2048))],
    [6, () => Buffer.from(r.str(PRINTABLE, r.range(1, 500)), 'latin1')],
    [
      8,
      () => {
        const line = r.pick(GARBAGE_LINES);
        c.notes.push(`line ${JSON.stringify(line.slice(0, 30))}`);
        return Buffer.from(line, 'latin1');
      },
    ],
    [3, () => Buffer.from(`${'A'.repeat(r.pick([100, 10_000, 70_000]))} / HTTP/1.1\r\nHost: x\r\n\r\n`)],
    [
      3,
      () =>
        Buffer.from(
          `GET / HTTP/1.1\r\n${Array.from({ length: r.pick([50, 3000]) }, (_, i) => `X-${i}: v\r\n`).join('')}`,
        ),
    ],
    [3, () => Buffer.from('\r\n'.repeat(r.pick([1, 100, 10_000])))],
    [2, () => Buffer.from('GET /api/v1/flags HTTP/1.1\r\n'.repeat(r.range(2, 50)))],
  ]);
  c.notes.unshift(`garbage ${bytes.length} B`);
  c.raw = [bytes];
  return c;
}

/** A well-formed request with a known answer, then garbage in the same write. */
function pipelinedKnownCase(r: Rng, id: number): FuzzCase {
  const c = baseCase(id, 'pipelined-known', []);
  const [first, status, method] = r.pick([
    [`GET /api/v1/flags HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${READ_KEY}\r\n\r\n`, 200, 'GET'],
    ['GET /api/v1/flags HTTP/1.1\r\nHost: x\r\n\r\n', 401, 'GET'],
    ['GET /nope HTTP/1.1\r\nHost: x\r\n\r\n', 404, 'GET'],
    ['OPTIONS /api/v1/flags HTTP/1.1\r\nHost: x\r\n\r\n', 204, 'OPTIONS'],
    [`PUT /api/v1/flags HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${READ_KEY}\r\n\r\n`, 405, 'PUT'],
    [
      `HEAD /api/v1/flags/seeded HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${READ_KEY}\r\n\r\n`,
      200,
      'HEAD',
    ],
  ] as const);
  const garbage = r.pick([
    'GARBAGE\r\n\r\n',
    'get / HTTP/1.1\r\n\r\n',
    '\u0000\r\n\r\n',
    'GET / HTTP/1.1\nHost x\n\n',
  ]);
  c.notes.push(`pipelined ${JSON.stringify(first.split('\r\n', 1)[0])} (expects ${status}) + garbage`);
  c.raw = [Buffer.from(first + garbage, 'latin1')];
  c.methods = [method];
  c.expectFirstStatus = status;
  return c;
}

/**
 * Straight at the validators: a full key, a route and method that take a body, JSON
 * content type, and a body every validator must reject (wrong shapes, deep nesting,
 * huge values, `__proto__`). PATCH may hit the existing flag: the body is invalid.
 */
function validationCase(r: Rng, id: number): FuzzCase {
  const method = r.pick(['POST', 'POST', 'PATCH']);
  const target =
    method === 'POST'
      ? r.pick(['/api/v1/flags', '/api/v1/webhooks'])
      : r.pick([
          `/api/v1/flags/${EXISTING_FLAG}`,
          `/api/v1/webhooks/wh_${r.str(ALNUM, 16)}`,
          `/api/v1/flags/fz-${r.int(1000)}`,
        ]);
  const { body, label } = r.chance(0.3) ? deepInValidatedField(r) : invalidBody(r);
  const notes = [`${method} ${target}`, `${label} (${body.length} B)`];
  const headers: Array<[string, string]> = [
    ['Authorization', `Bearer ${r.pick(FULL_KEYS)}`],
    ['Content-Type', r.pick(['application/json', 'application/json; charset=utf-8'])],
  ];
  const req: Req = {
    method,
    target,
    headers,
    body,
    framing: 'length',
    host: true,
    version: 'HTTP/1.1',
    notes,
  };
  const c = baseCase(id, 'validation', notes);
  c.req = req;
  c.guarded = true;
  c.transport = r.pick(['fetch', 'fetch', 'node', 'raw'] as const);
  if (c.transport === 'node' && r.chance(0.3)) req.framing = 'chunked';
  c.raw = serialize(r, req);
  c.methods = [method];
  c.mayClose = c.transport === 'raw' || bigUpload(req);
  c.notes.push(`via ${c.transport}`);
  return c;
}

export function generateCase(seed: number, id: number): FuzzCase {
  const r = new Rng(caseSeed(seed, id));
  return r.weighted<FuzzCase>([
    [40, () => structuredCase(r, id)],
    [10, () => validationCase(r, id)],
    [13, () => framingCase(r, id)],
    [20, () => mangledCase(r, id)],
    [15, () => garbageCase(r, id)],
    [2, () => pipelinedKnownCase(r, id)],
  ]);
}
