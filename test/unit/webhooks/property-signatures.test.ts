/**
 * Property-based tests of webhook verification, on both HMAC implementations (the pure-JS
 * `hmac-web.ts` and `node:crypto` `hmac-node.ts`), against `node:crypto` as the reference.
 * Seeded: `PROPERTY_SEED=<n> npx vitest run test/unit/webhooks/property-signatures.test.ts` replays a run.
 */
import { createHash, createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hmacSha256Hex as nodeHmac } from '../../../src/webhooks/hmac-node.js';
import { hmacSha256Hex as webHmac } from '../../../src/webhooks/hmac-web.js';
import { verifySignature as defaultVerifySignature } from '../../../src/webhooks/index.js';
import type { HeadersOrSignature, RawBody } from '../../../src/webhooks/types.js';
import { createVerifier } from '../../../src/webhooks/verify.js';
import { check } from '../../helpers/property-seed.js';

const CODES = [
  'missing_header',
  'malformed_header',
  'payload_not_raw',
  'signature_mismatch',
  'invalid_json',
  'invalid_event',
  'timestamp_too_old',
  'timestamp_too_new',
  'empty_secret',
];

const IMPLEMENTATIONS = [
  ['web', createVerifier(webHmac)],
  ['node', createVerifier(nodeHmac)],
] as const;

const utf8 = (text: string): Buffer => Buffer.from(text, 'utf8');

/** The bytes a raw body stands for (only a view's own range). */
function bytesOf(body: string | Uint8Array | ArrayBuffer): Buffer {
  if (typeof body === 'string') return utf8(body);
  if (body instanceof ArrayBuffer) return Buffer.from(new Uint8Array(body));
  return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/** Reference HMAC: `node:crypto` over the UTF-8 bytes of the secret and the body's bytes. */
const hex = (body: string | Uint8Array | ArrayBuffer, secret: string): string =>
  createHmac('sha256', utf8(secret)).update(bytesOf(body)).digest('hex');
const sign = (body: string | Uint8Array | ArrayBuffer, secret: string): string =>
  `sha256=${hex(body, secret)}`;

/** The HMAC key a secret really is: a key over a block is hashed, then zero-padded to a block. */
function effectiveKey(secret: string): string {
  let key = utf8(secret);
  if (key.length > 64) key = createHash('sha256').update(key).digest();
  return key.toString('hex').replace(/(00)+$/, '');
}

/** Strings of every kind: full Unicode (lone surrogates included), ASCII, graphemes. */
const textArb = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.string({ unit: 'grapheme', maxLength: 100 }),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 100 }),
  fc.string({ maxLength: 200 }),
);
const bytesArb = fc.oneof(
  fc.uint8Array({ maxLength: 300 }),
  // Sizes around the SHA-256 block boundaries (55, 56, 64, 119, 128 ...).
  fc.integer({ min: 50, max: 140 }).chain((n) => fc.uint8Array({ minLength: n, maxLength: n })),
);
/** A body as a receiver may hold it: a string, bytes, a Buffer, a view into a larger buffer, an ArrayBuffer. */
const bodyArb: fc.Arbitrary<string | Uint8Array | ArrayBuffer> = fc.oneof(
  textArb,
  bytesArb,
  bytesArb.map((b) => Buffer.from(b)),
  fc
    .tuple(fc.uint8Array({ maxLength: 8 }), bytesArb, fc.uint8Array({ maxLength: 8 }))
    .map(([before, b, after]) => {
      const all = new Uint8Array([...before, ...b, ...after]);
      return all.subarray(before.length, before.length + b.length);
    }),
  bytesArb.map((b) => b.slice().buffer as ArrayBuffer),
  // Other views: only the bytes they cover count.
  bytesArb.map((b) => new DataView(b.slice().buffer) as unknown as Uint8Array),
  bytesArb.map((b) => new Uint16Array(b.slice(0, b.length & ~1).buffer) as unknown as Uint8Array),
);
/** `fc.anything()` with every kind of value switched on (typed arrays, boxed values, null prototypes ...). */
const anyValue = fc.anything({
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withObjectString: true,
  withSparseArray: true,
  withTypedArray: true,
});
/** Non-empty secrets, shorter and longer than a block (64 bytes). */
const secretArb = fc.oneof(
  fc.string({ unit: 'binary', minLength: 1, maxLength: 100 }),
  fc.string({ minLength: 1, maxLength: 80 }).map((s) => `whsec_${s}`),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), minLength: 1 }),
);

describe.each(IMPLEMENTATIONS)('verifySignature (%s HMAC)', (_name, { verifySignature }) => {
  it('accepts the node:crypto signature of every body under every secret', () => {
    check(
      fc.property(bodyArb, secretArb, (body, secret) => {
        expect(verifySignature(body, sign(body, secret), secret)).toBe(true);
      }),
      500,
    );
  });

  it('rejects the body with any single byte changed', () => {
    check(
      fc.property(
        bytesArb.filter((b) => b.length > 0),
        secretArb,
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (bytes, secret, at, mask) => {
          const header = sign(bytes, secret);
          const changed = bytes.slice();
          const i = at % changed.length;
          changed[i]! ^= mask;
          expect(verifySignature(changed, header, secret)).toBe(false);
          expect(verifySignature(bytes, header, secret)).toBe(true);
        },
      ),
      500,
    );
  });

  it('rejects the header with any single hex digit changed', () => {
    check(
      fc.property(
        bodyArb,
        secretArb,
        fc.nat({ max: 63 }),
        fc.integer({ min: 1, max: 15 }),
        (body, secret, at, delta) => {
          const header = sign(body, secret);
          const i = 'sha256='.length + at;
          const digit = ((Number.parseInt(header[i]!, 16) + delta) % 16).toString(16);
          const changed = header.slice(0, i) + digit + header.slice(i + 1);
          expect(changed).not.toBe(header);
          expect(verifySignature(body, changed, secret)).toBe(false);
          // The same digits in uppercase are malformed, not another spelling of the signature.
          if (/[a-f]/.test(header.slice(7)))
            expect(verifySignature(body, header.toUpperCase(), secret)).toBe(false);
        },
      ),
      500,
    );
  });

  it('rejects a different secret (one that is not the same HMAC key)', () => {
    check(
      fc.property(
        bodyArb,
        secretArb,
        secretArb.filter((s) => s.length > 0),
        (body, secret, other) => {
          fc.pre(effectiveKey(secret) !== effectiveKey(other));
          expect(verifySignature(body, sign(body, secret), other)).toBe(false);
        },
      ),
      500,
    );
  });

  it('never throws for arbitrary values as body, header and secret', () => {
    check(
      fc.property(
        fc.oneof(fc.anything(), anyValue, bodyArb),
        fc.oneof(fc.anything(), anyValue, fc.string()),
        fc.oneof(fc.anything(), anyValue, secretArb),
        (body, header, secret) => {
          const result = verifySignature(body as RawBody, header as string, secret as string);
          expect(typeof result).toBe('boolean');
        },
      ),
      1000,
    );
  });
});

describe('web and node HMAC agree', () => {
  it('hmacSha256Hex: the same 64 lowercase hex digits as node:crypto for any key and message', () => {
    check(
      fc.property(
        fc.oneof(bytesArb, fc.uint8Array({ minLength: 60, maxLength: 200 })),
        bytesArb,
        (key, message) => {
          const expected = createHmac('sha256', key).update(message).digest('hex');
          expect(webHmac(key, message)).toBe(expected);
          expect(nodeHmac(key, message)).toBe(expected);
        },
      ),
      1000,
    );
  });

  it('verifySignature: the same answer on every input, and the same as the package entry', () => {
    const headerArb = (body: string | Uint8Array | ArrayBuffer, secret: string) =>
      fc.oneof(
        fc.constant(sign(body, secret)),
        fc.constant(sign(body, `${secret}x`)),
        fc.string(),
        fc
          .string({ unit: fc.constantFrom(...'0123456789abcdefA'), minLength: 62, maxLength: 66 })
          .map((digits) => `sha256=${digits}`),
      );
    check(
      fc.property(
        fc
          .tuple(bodyArb, secretArb)
          .chain(([b, s]) => fc.tuple(fc.constant(b), fc.constant(s), headerArb(b, s))),
        fc.option(secretArb),
        ([body, secret, header], other) => {
          const key = other ?? secret;
          const web = IMPLEMENTATIONS[0][1].verifySignature(body, header, key);
          const node = IMPLEMENTATIONS[1][1].verifySignature(body, header, key);
          expect(web).toBe(node);
          expect(defaultVerifySignature(body, header, key)).toBe(web);
          expect(web).toBe(header === sign(body, key));
        },
      ),
      1000,
    );
  });
});

/** A webhook event envelope where any field may be replaced by an arbitrary JSON value. */
const NOW = 1_800_000_000_000;
/** Mostly `valid`, sometimes one of `invalid`, sometimes any JSON value. */
const maybe = <T>(valid: fc.Arbitrary<T>, ...invalid: unknown[]): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 40, arbitrary: valid },
    { weight: invalid.length > 0 ? 1 : 0, arbitrary: fc.constantFrom(...invalid, null) },
    { weight: 1, arbitrary: fc.jsonValue() },
  );
/** `type` and `data.action` that go together (mostly). */
const typeActionArb = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.tuple(fc.constant('flag.updated'), fc.constantFrom('created', 'updated', 'deleted')),
  },
  {
    weight: 10,
    arbitrary: fc.tuple(fc.constantFrom('flag.enabled', 'flag.disabled'), fc.constant('updated')),
  },
  { weight: 5, arbitrary: fc.tuple(fc.constant('webhook.test'), fc.constant('test')) },
  {
    weight: 1,
    arbitrary: fc.tuple(
      fc.constantFrom('flag.enabled', 'flag.updated', 'webhook.test', 'flag.other'),
      fc.constantFrom('created', 'test', 'other'),
    ),
  },
);
const sentAtArb = fc.oneof(
  { weight: 5, arbitrary: fc.integer({ min: NOW / 1000 - 400, max: NOW / 1000 + 400 }) },
  { weight: 1, arbitrary: fc.oneof(fc.double(), fc.integer({ min: -1, max: Number.MAX_SAFE_INTEGER })) },
);
const envelopeOf = (allKeys: boolean) => {
  const keys: { requiredKeys?: [] } = allKeys ? {} : { requiredKeys: [] };
  return fc.tuple(typeActionArb, fc.boolean()).chain(([[type, action], rollout]) =>
    fc.record(
      {
        id: maybe(fc.constant('evt_1'), 'evt', ''),
        type: maybe(fc.constant(type)),
        createdAt: maybe(fc.constant('2027-01-15T08:00:00.000Z'), 'yesterday', ''),
        webhookId: maybe(fc.constant('wh_1'), 'x'),
        project: maybe(fc.constant('proj'), ''),
        environment: maybe(fc.constant('production'), ''),
        delivery: maybe(
          fc.record(
            {
              id: maybe(fc.constant('dlv_1'), ''),
              attempt: maybe(fc.integer({ min: 1, max: 5 }), 0, -1, 1.5),
              sentAt: maybe(sentAtArb, '1800000000'),
            },
            keys,
          ),
        ),
        data: maybe(
          fc.record(
            {
              action: maybe(fc.constant(action)),
              flag: maybe(
                fc.record(
                  {
                    key: maybe(fc.constant('f'), ''),
                    type: maybe(fc.constant(rollout ? 'rollout' : 'boolean'), 'other'),
                    enabled: maybe(fc.boolean()),
                    description: maybe(fc.option(fc.string())),
                    percentage: maybe(fc.integer({ min: 0, max: 100 }), -1, 101, 50.5),
                  },
                  keys,
                ),
              ),
              previous: fc.option(
                maybe(
                  fc.record(
                    {
                      enabled: maybe(fc.boolean()),
                      percentage: maybe(fc.integer({ min: 0, max: 100 }), 101),
                    },
                    { requiredKeys: [] },
                  ),
                ),
                { nil: undefined },
              ),
            },
            { requiredKeys: ['action', 'flag'] },
          ),
        ),
      },
      keys,
    ),
  );
};
/** Every field present (mostly valid, so the time checks run), or any of them missing. */
const envelopeArb = fc.oneof(envelopeOf(true), envelopeOf(false));

/** Bodies for `constructEvent`: event-like JSON (signed, so the checks past the signature run) or anything. */
const eventBodyArb: fc.Arbitrary<unknown> = fc.oneof(
  envelopeArb.map((e) => JSON.stringify(e)),
  envelopeArb.map((e) => utf8(`\uFEFF${JSON.stringify(e)}`)),
  fc.jsonValue().map((v) => JSON.stringify(v) ?? 'null'),
  bodyArb,
  fc.anything(),
  anyValue,
);

/** Whether `body` is something `bytesOf` can read, like `constructEvent`'s raw body check. */
const isRaw = (body: unknown): body is string | Uint8Array | ArrayBuffer =>
  typeof body === 'string' || ArrayBuffer.isView(body) || body instanceof ArrayBuffer;

describe.each(IMPLEMENTATIONS)('constructEvent (%s HMAC)', (_name, { constructEvent }) => {
  it('throws only WebhookVerificationError with a documented code, never revealing the expected signature', () => {
    const inputArb = fc
      .tuple(
        eventBodyArb,
        fc.oneof(secretArb, fc.array(fc.oneof(secretArb, fc.constant(''))), fc.anything(), anyValue),
      )
      .chain(([body, secret]) => {
        const secrets = (Array.isArray(secret) ? secret : [secret]).filter(
          (s): s is string => typeof s === 'string' && s.length > 0,
        );
        const signatures = isRaw(body) ? secrets.map((s) => sign(body, s)) : [];
        const good = signatures.length > 0 ? fc.constantFrom(...signatures) : fc.string();
        const headerArb = fc.oneof(
          good,
          good.map((h) => ({ 'x-flagwire-signature': h })),
          good.map((h) => ({ 'X-Flagwire-Signature': [h, 'sha256=00'] })),
          good.map((h) => new Headers({ 'x-flagwire-signature': h })),
          good.map((h) => h.toUpperCase()),
          good.map((h) => `${h.slice(0, -1)}${h.endsWith('0') ? '1' : '0'}`),
          fc.anything(),
          anyValue,
          fc.string(),
        );
        return fc.tuple(fc.constant(body), headerArb, fc.constant(secret), fc.constant(signatures));
      });
    const seen = new Set<string>();
    check(
      fc.property(
        inputArb,
        fc.option(
          fc.record({
            toleranceSeconds: fc.constantFrom(0, 300, Number.POSITIVE_INFINITY),
            now: fc.constant(NOW),
          }),
        ),
        ([body, header, secret, signatures], options) => {
          try {
            const event = constructEvent(
              body as RawBody,
              header as HeadersOrSignature,
              secret as string,
              options ?? { now: NOW },
            );
            // Returned: the body was signed under one of the secrets.
            expect(signatures.length).toBeGreaterThan(0);
            expect(typeof event.delivery.sentAt).toBe('number');
            seen.add('returned');
          } catch (error) {
            expect(error).toBeInstanceOf(Error);
            const e = error as Error & { code?: unknown };
            expect(e.name).toBe('WebhookVerificationError');
            expect(CODES).toContain(e.code);
            seen.add(String(e.code));
            for (const s of signatures) expect(e.message).not.toContain(s.slice('sha256='.length));
            if (typeof secret === 'string' && secret.length >= 8) expect(e.message).not.toContain(secret);
          }
        },
      ),
      1000,
    );
    // The generators reach every outcome past the signature, not only the early rejections.
    expect([...seen].sort()).toEqual([...CODES, 'returned'].sort());
  });

  it('a valid event signed under the secret (or one of them) is returned', () => {
    check(
      fc.property(
        fc.integer({ min: -300, max: 300 }),
        secretArb,
        fc.array(secretArb, { maxLength: 3 }),
        fc.boolean(),
        (skew, secret, others, asBytes) => {
          const event = {
            id: 'evt_1',
            type: 'flag.updated',
            createdAt: '2027-01-15T08:00:00.000Z',
            webhookId: 'wh_1',
            project: 'p',
            environment: 'e',
            delivery: { id: 'dlv_1', attempt: 1, sentAt: NOW / 1000 + skew },
            data: {
              action: 'created',
              flag: { key: 'f', type: 'boolean', enabled: false, description: null },
            },
          };
          const text = JSON.stringify(event);
          const body = asBytes ? utf8(text) : text;
          expect(constructEvent(body, sign(body, secret), [...others, secret], { now: NOW })).toEqual(event);
        },
      ),
      300,
    );
  });
});
