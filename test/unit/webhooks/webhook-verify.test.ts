/**
 * Webhook receiver: `verifySignature` and `constructEvent` on the published vectors
 * (`test/vectors/webhook-signatures.json`) through both HMAC paths (pure JS and node:crypto),
 * the pure-JS SHA-256 against NIST and node:crypto, input forms, rotation, hostile inputs and
 * what error messages may never contain.
 */
import { createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { FlagwireError, isFlagwireError } from '../../../src/errors.js';
import { hmacSha256Hex as nodeHmac } from '../../../src/webhooks/hmac-node.js';
import { hmacSha256Hex as webHmac } from '../../../src/webhooks/hmac-web.js';
import type { HeadersOrSignature, WebhookEvent } from '../../../src/webhooks/index.js';
import { constructEvent, verifySignature, WebhookVerificationError } from '../../../src/webhooks/index.js';
import { sha256 } from '../../../src/webhooks/sha256.js';
import { createVerifier, type WebhookVerifier } from '../../../src/webhooks/verify.js';

interface Vector {
  name: string;
  secret: string;
  body?: string;
  bodyHex?: string;
  header: string | null;
  expectVerify: boolean;
  now?: number;
  toleranceSeconds?: number;
  expectEvent?: true;
  expectError?: string;
}

const { cases } = JSON.parse(
  readFileSync(new URL('../../vectors/webhook-signatures.json', import.meta.url), 'utf8'),
) as { cases: Vector[] };

const PATHS: [string, WebhookVerifier][] = [
  ['pure JS', createVerifier(webHmac)],
  ['node:crypto', createVerifier(nodeHmac)],
];

const encoder = new TextEncoder();
const toHex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const bytesOf = (v: Vector): Uint8Array =>
  v.body !== undefined ? encoder.encode(v.body) : new Uint8Array(Buffer.from(v.bodyHex!, 'hex'));
/** The HMAC a correct receiver computes, from node:crypto: what messages must never reveal. */
const expectedHex = (secret: string, bytes: Uint8Array): string =>
  createHmac('sha256', secret).update(bytes).digest('hex');

/** The same body bytes in every raw form a receiver may hold. */
function bodyForms(v: Vector): [string, string | Uint8Array | ArrayBuffer][] {
  const bytes = bytesOf(v);
  const padded = new Uint8Array(bytes.length + 11).fill(0x7b);
  padded.set(bytes, 5);
  const forms: [string, string | Uint8Array | ArrayBuffer][] = [
    ['Uint8Array', bytes],
    ['subarray', padded.subarray(5, 5 + bytes.length)],
    ['ArrayBuffer', bytes.slice().buffer],
    ['Buffer', Buffer.from(bytes)],
  ];
  if (v.body !== undefined) forms.unshift(['string', v.body]);
  return forms;
}

/** The header in every form `constructEvent` accepts. */
function headerForms(header: string | null): [string, HeadersOrSignature][] {
  if (header === null)
    return [
      ['bare', null],
      ['Headers', new Headers()],
      ['record', { 'content-type': 'x' }],
    ];
  const forms: [string, HeadersOrSignature][] = [
    ['bare', header],
    ['record (mixed case)', { 'X-Flagwire-Signature': header }],
    ['record (array)', { 'x-flagwire-signature': [header, 'sha256=0'] }],
  ];
  // `Headers` trims values, so only values without surrounding whitespace survive it unchanged.
  if (header === header.trim()) forms.push(['Headers', new Headers({ 'X-Flagwire-Signature': header })]);
  return forms;
}

/** Runs `fn`, expecting a `WebhookVerificationError`, and returns it. */
function catchError(fn: () => unknown): WebhookVerificationError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return error as WebhookVerificationError;
  }
  throw new Error('expected constructEvent to throw');
}

/** The message and stack reveal neither the expected signature nor any secret. */
function expectNoLeak(error: Error, secrets: string[], bytes: Uint8Array): void {
  const text = `${error.message}\n${error.stack ?? ''}`;
  for (const secret of secrets) {
    if (secret.length === 0) continue;
    const expected = expectedHex(secret, bytes);
    for (let i = 0; i + 16 <= 64; i += 8) expect(text).not.toContain(expected.slice(i, i + 16));
    expect(text).not.toContain(secret);
    if (secret.trim().length >= 8) expect(text).not.toContain(secret.trim());
    if (secret.startsWith('whsec_')) expect(text).not.toContain(secret.slice(6));
  }
}

describe('published vectors', () => {
  it('has the cases the contract asks for', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
    const github = cases.find((v) => v.name === 'GitHub public vector');
    expect(github).toMatchObject({
      secret: "It's a Secret to Everybody",
      body: 'Hello, World!',
      header: 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
      expectVerify: true,
    });
    for (const v of cases)
      expect(v.expectEvent === true || v.expectError !== undefined).toBe(v.now !== undefined);
  });

  describe.each(PATHS)('%s HMAC', (_path, verifier) => {
    it.each(cases.map((v) => [v.name, v] as const))('verifySignature: %s', (_name, v) => {
      for (const [form, body] of bodyForms(v)) {
        expect([form, verifier.verifySignature(body, v.header, v.secret)]).toEqual([form, v.expectVerify]);
      }
    });

    it.each(cases.filter((v) => v.now !== undefined).map((v) => [v.name, v] as const))(
      'constructEvent: %s',
      (_name, v) => {
        const options = {
          now: v.now!,
          ...(v.toleranceSeconds === undefined ? {} : { toleranceSeconds: v.toleranceSeconds }),
        };
        const bytes = bytesOf(v);
        for (const [bodyForm, body] of bodyForms(v)) {
          for (const [headerForm, headers] of headerForms(v.header)) {
            const label = `${bodyForm} + ${headerForm}`;
            if (v.expectEvent) {
              const text = new TextDecoder().decode(bytes);
              const event = verifier.constructEvent(body, headers, v.secret, options);
              expect([label, event]).toEqual([label, JSON.parse(text)]);
            } else {
              const error = catchError(() => verifier.constructEvent(body, headers, v.secret, options));
              expect([label, error.code]).toEqual([label, v.expectError]);
              expectNoLeak(error, [v.secret], bytes);
            }
          }
        }
      },
    );
  });

  it('the default export binds the pure-JS path and agrees with it', () => {
    for (const v of cases) {
      expect(verifySignature(bytesOf(v), v.header, v.secret)).toBe(v.expectVerify);
    }
  });
});

describe('SHA-256 and HMAC-SHA256 (pure JS)', () => {
  const hex = (text: string): string => toHex(sha256(encoder.encode(text)));

  it('matches the NIST FIPS 180-2 examples', () => {
    expect(hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
    expect(
      hex(
        'abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu',
      ),
    ).toBe('cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1');
    expect(toHex(sha256(new Uint8Array(1_000_000).fill(0x61)))).toBe(
      'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0',
    );
  });

  /** mulberry32: a small seeded PRNG, so a failure reproduces. */
  function prng(seed: number): () => number {
    return () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return (t ^ (t >>> 14)) >>> 0;
    };
  }
  const randomBytes = (next: () => number, length: number): Uint8Array => {
    const bytes = new Uint8Array(length);
    for (let i = 0; i < length; i++) bytes[i] = next() & 0xff;
    return bytes;
  };

  it('agrees with node:crypto on random bytes of every length 0..300 and a few large ones', () => {
    const next = prng(0x5eed);
    for (const length of [
      ...Array.from({ length: 301 }, (_, i) => i),
      4095,
      65_536,
      100_003,
      (1 << 20) + 13,
    ]) {
      const message = randomBytes(next, length);
      const key = randomBytes(next, next() % 150);
      expect([length, toHex(sha256(message))]).toEqual([
        length,
        createHash('sha256').update(message).digest('hex'),
      ]);
      expect([length, key.length, webHmac(key, message)]).toEqual([
        length,
        key.length,
        createHmac('sha256', key).update(message).digest('hex'),
      ]);
      expect(nodeHmac(key, message)).toBe(webHmac(key, message));
    }
  });

  it('handles keys at the block boundary (0, 63, 64, 65 bytes: longer keys are hashed first)', () => {
    const next = prng(42);
    const message = randomBytes(next, 1000);
    for (const length of [0, 1, 32, 63, 64, 65, 128, 1000]) {
      const key = randomBytes(next, length);
      expect(webHmac(key, message)).toBe(createHmac('sha256', key).update(message).digest('hex'));
    }
  });

  it('reads a subarray as the bytes of its own view', () => {
    const next = prng(7);
    const backing = randomBytes(next, 700);
    for (const [start, end] of [
      [0, 0],
      [3, 3],
      [1, 64],
      [13, 140],
      [63, 700],
    ] as const) {
      const view = backing.subarray(start, end);
      const copy = backing.slice(start, end);
      expect(toHex(sha256(view))).toBe(toHex(sha256(copy)));
      const key = backing.subarray(start + 1, start + 40);
      expect(webHmac(key, view)).toBe(createHmac('sha256', key.slice()).update(copy).digest('hex'));
    }
  });
});

describe('input forms', () => {
  const secret = 'whsec_q3Zt7vKp9LmXw2RbNc8YhJd4FsGa6TeUo1iPkQxVyE0';
  const ascii = cases.find((v) => v.name === 'ascii compact event (flag.enabled)')!;
  const body = ascii.body!;
  const header = ascii.header!;
  const now = ascii.now!;

  it.each(PATHS)('finds the header in every container (%s)', (_path, { constructEvent }) => {
    const containers: [string, HeadersOrSignature][] = [
      ['Headers', new Headers({ 'X-Flagwire-Signature': header })],
      ['Node record', { 'content-type': 'application/json', 'x-flagwire-signature': header }],
      ['mixed-case record', { 'X-FLAGWIRE-Signature': header }],
      ['array value', { 'x-flagwire-signature': [header] }],
      [
        'Express-like get()',
        { get: (name: string) => (name.toLowerCase() === 'x-flagwire-signature' ? header : undefined) },
      ],
      ['Map, canonical case', new Map([['X-Flagwire-Signature', header]])],
      ['Map, lower case', new Map([['x-flagwire-signature', header]])],
      ['bare string', header],
    ];
    for (const [label, headers] of containers) {
      expect([label, constructEvent(body, headers, secret, { now }).id]).toEqual([
        label,
        'evt_4fQm9xKz2LpW7nVb3RcT8yHs',
      ]);
    }
    const other = `sha256=${'0'.repeat(64)}`;
    const first = catchError(() =>
      constructEvent(body, { 'x-flagwire-signature': [other, header] }, secret, { now }),
    );
    expect(first.code).toBe('signature_mismatch');
    for (const missing of [
      {},
      { 'x-flagwire-event': 'flag.enabled' },
      new Headers(),
      { 'x-flagwire-signature': [] },
    ]) {
      expect(catchError(() => constructEvent(body, missing, secret, { now })).code).toBe('missing_header');
    }
  });

  it('accepts Headers, Node headers and a Map at the type level', () => {
    expectTypeOf<Headers>().toExtend<HeadersOrSignature>();
    expectTypeOf<IncomingHttpHeaders>().toExtend<HeadersOrSignature>();
    expectTypeOf<Map<string, string>>().toExtend<HeadersOrSignature>();
    expectTypeOf<{ a: 1 }>().not.toExtend<Parameters<typeof verifySignature>[0]>();
  });

  it('narrows the event on `type`', () => {
    const event = constructEvent(body, header, secret, { now });
    expectTypeOf(event).toEqualTypeOf<WebhookEvent>();
    if (event.type === 'flag.enabled') expectTypeOf(event.data.action).toEqualTypeOf<'updated'>();
    if (event.type === 'flag.updated') {
      expectTypeOf(event.data.action).toEqualTypeOf<'created' | 'updated' | 'deleted'>();
    }
    expect(event.type).toBe('flag.enabled');
    if (event.type !== 'flag.enabled') return;
    expect(event.data.flag).toEqual({
      key: 'new-checkout',
      type: 'rollout',
      enabled: true,
      percentage: 25,
      description: null,
    });
  });

  it.each(PATHS)('rotates secrets: valid when any matches (%s)', (_path, { constructEvent }) => {
    const old = 'whsec_Hn5Wb2Lr8TqZc4XmVs7Jk1PdGy9FaUe3RoNiKtBwYx6';
    const older = 'whsec_Pz3Lq8Vn1Xc6Kb9Wm4Rt7Jd2Hf5Gs0Ya3Ue8Io1Nx4';
    expect(constructEvent(body, header, [old, secret], { now }).id).toMatch(/^evt_/);
    expect(constructEvent(body, header, [secret, old], { now }).id).toMatch(/^evt_/);
    expect(constructEvent(body, header, ['', secret], { now }).id).toMatch(/^evt_/);
    const mismatch = catchError(() => constructEvent(body, header, [old, older], { now }));
    expect(mismatch.code).toBe('signature_mismatch');
    expect(mismatch.message).toContain('any of the 2 secrets');
    expectNoLeak(mismatch, [old, older, secret], encoder.encode(body));
    expect(catchError(() => constructEvent(body, header, [], { now })).code).toBe('empty_secret');
    expect(catchError(() => constructEvent(body, header, ['', ''], { now })).code).toBe('empty_secret');
  });

  it('validates its options', () => {
    expect(() => constructEvent(body, header, secret, { toleranceSeconds: -1 })).toThrow(TypeError);
    expect(() => constructEvent(body, header, secret, { toleranceSeconds: Number.NaN })).toThrow(TypeError);
    expect(() => constructEvent(body, header, secret, { now: Number.NaN })).toThrow(TypeError);
    const later = now + 10 * 365 * 86_400_000;
    expect(
      constructEvent(body, header, secret, { now: later, toleranceSeconds: Number.POSITIVE_INFINITY }).id,
    ).toMatch(/^evt_/);
    // Without `now`, the real clock: the 2026 vector is far from it one way or the other.
    expect(['timestamp_too_old', 'timestamp_too_new']).toContain(
      catchError(() => constructEvent(body, header, secret)).code,
    );
  });
});

describe('errors', () => {
  const v = cases.find((c) => c.name === 'ascii compact event (flag.enabled)')!;
  const body = v.body!;
  const now = v.now!;
  const header = v.header!;

  it('are FlagwireErrors with a stable code and name', () => {
    const error = catchError(() => constructEvent(body, null, v.secret, { now }));
    expect(error).toBeInstanceOf(FlagwireError);
    expect(isFlagwireError(error)).toBe(true);
    expect(error.name).toBe('WebhookVerificationError');
    expect(error.code).toBe('missing_header');
    expect(error.status).toBeUndefined();
  });

  it('teach the fix', () => {
    const parsed = catchError(() => constructEvent(JSON.parse(body), header, v.secret, { now }));
    expect(parsed.code).toBe('payload_not_raw');
    expect(parsed.message).toContain("express.raw({ type: 'application/json' })");
    expect(parsed.message).toContain('await req.text()');
    expect(parsed.message).toContain('an object');

    const spaced = catchError(() => constructEvent(body, header, `${v.secret}\n`, { now }));
    expect(spaced.code).toBe('signature_mismatch');
    expect(spaced.message).toContain('leading or trailing whitespace');

    const unprefixed = catchError(() => constructEvent(body, header, v.secret.slice(6), { now }));
    expect(unprefixed.message).toContain('start with "whsec_"');
    expect(unprefixed.message).not.toContain('whitespace');

    const reserialized = catchError(() =>
      constructEvent(JSON.stringify(JSON.parse(body), null, 1), header, v.secret, { now }),
    );
    expect(reserialized.message).toContain('not JSON re-serialized');

    expect(
      catchError(() =>
        constructEvent(body, header.toUpperCase().replace('SHA256', 'sha256'), v.secret, { now }),
      ).message,
    ).toContain('lowercase');
    expect(catchError(() => constructEvent(body, header.slice(0, -2), v.secret, { now })).message).toContain(
      'got 62',
    );
    expect(catchError(() => constructEvent(body, header, '', { now })).message).toContain('whsec_');
    expect(
      catchError(() => constructEvent(body, header, v.secret, { now: now + 3_600_000 })).message,
    ).toContain('options.now');
  });

  it('never contain the expected signature or the secret', () => {
    const bytes = encoder.encode(body);
    const wrongSecrets = [
      'whsec_Hn5Wb2Lr8TqZc4XmVs7Jk1PdGy9FaUe3RoNiKtBwYx6',
      ` ${v.secret}`,
      v.secret.slice(6),
      "It's a Secret to Everybody",
    ];
    for (const secret of wrongSecrets) {
      const error = catchError(() => constructEvent(body, header, secret, { now }));
      expect(error.code).toBe('signature_mismatch');
      expectNoLeak(error, [secret], bytes);
    }
    // A header that is the right signature but malformed, and one that is almost right.
    const right = expectedHex(v.secret, bytes);
    for (const bad of [
      `sha256=${right.toUpperCase()}`,
      `sha256=${right.slice(0, 63)}`,
      `${right}`,
      `sha256=${right} `,
    ]) {
      const error = catchError(() => constructEvent(body, bad, v.secret, { now }));
      expect(error.code).toBe('malformed_header');
      expectNoLeak(error, [v.secret], bytes);
    }
  });
});

describe('hostile inputs', () => {
  const v = cases.find((c) => c.name === 'ascii compact event (flag.enabled)')!;
  const body = v.body!;
  const header = v.header!;
  const secret = v.secret;
  const now = v.now!;

  const throwing = new Proxy(
    {},
    {
      get() {
        throw new Error('trap');
      },
      ownKeys() {
        throw new Error('trap');
      },
      getPrototypeOf() {
        throw new Error('trap');
      },
    },
  );
  const { proxy: revoked, revoke } = Proxy.revocable({}, {});
  revoke();
  const detached = new ArrayBuffer(16);
  structuredClone(detached, { transfer: [detached] });
  const badBuffer = new Uint8Array(8);
  Object.defineProperty(badBuffer, 'buffer', {
    get() {
      throw new Error('getter');
    },
  });
  const getterThrows = Object.defineProperty({}, 'x-flagwire-signature', {
    enumerable: true,
    get() {
      throw new Error('getter');
    },
  });
  const hostile: unknown[] = [
    {},
    [],
    null,
    undefined,
    0,
    42,
    Number.NaN,
    true,
    Symbol('x'),
    10n,
    () => body,
    new String(body),
    JSON.parse(body),
    throwing,
    revoked,
    detached,
    badBuffer,
    getterThrows,
    { toString: () => header, valueOf: () => header },
    Object.create(null),
  ];

  it.each(PATHS)('verifySignature never throws and answers false (%s)', (_path, { verifySignature }) => {
    const verify = verifySignature as (...args: unknown[]) => boolean;
    expect(verify(body, header, secret)).toBe(true);
    for (const value of hostile) {
      expect(verify(value, header, secret)).toBe(false);
      expect(verify(body, value, secret)).toBe(false);
      expect(verify(body, header, value)).toBe(false);
      expect(verify(value, value, value)).toBe(false);
    }
    expect(verify(body, [header], secret)).toBe(false);
    expect(verify(body, header, [secret])).toBe(false);
    expect(verify(body, header, '')).toBe(false);
    expect(verify()).toBe(false);
  });

  it('verifySignature survives an HMAC implementation that throws', () => {
    const broken = createVerifier(() => {
      throw new Error('no crypto here');
    });
    expect(broken.verifySignature(body, header, secret)).toBe(false);
  });

  it.each(PATHS)('constructEvent throws only WebhookVerificationError (%s)', (_path, { constructEvent }) => {
    const construct = constructEvent as (...args: unknown[]) => WebhookEvent;
    for (const value of hostile) {
      if (typeof value !== 'string') {
        const error = catchError(() => construct(value, header, secret, { now }));
        expect(error.code).toBe('payload_not_raw');
      }
      const headerError = catchError(() => construct(body, value, secret, { now }));
      expect(['missing_header', 'malformed_header']).toContain(headerError.code);
      expect(catchError(() => construct(body, header, value, { now })).code).toBe('empty_secret');
    }
    expect(catchError(() => construct(body, { get: throwingGet }, secret, { now })).code).toBe(
      'missing_header',
    );
  });
});

function throwingGet(): never {
  throw new Error('get');
}
