/**
 * The `public` webhook target policy against every spelling of an address (`docs/protocol.md`
 * §8.4): IPv4 in shortened, octal, hexadecimal, decimal or percent-encoded forms, IPv4 inside
 * IPv6 (compatible, mapped, translated, NAT64, 6to4, Teredo), deprecated and unassigned IPv6,
 * upper-case hex, zone ids, the unspecified address, and names with a trailing dot or under
 * special-use domains. Decided when the webhook is saved: nothing is delivered.
 *
 * Name resolution is replaced by a table, so no test sends a DNS query anywhere: a name that is
 * not in it does not resolve. The table answers only names without their trailing dot, as
 * `/etc/hosts` does, so a check that resolved `name.` as written would miss the answer.
 */
import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { addressProblem, isPublicAddress, publicLookup } from '../../../server/webhooks/targets.js';
import { expectError } from '../../helpers/assert.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const dns = vi.hoisted(() => {
  const table: Record<string, string[]> = {
    localhost: ['127.0.0.1', '::1'],
    'private.example': ['93.184.216.34', '10.0.0.7'],
    'metadata.example': ['169.254.169.254'],
    'mapped.example': ['::ffff:7f00:1'],
    'compatible.example': ['::7f00:1'],
    'public.example': ['93.184.216.34', '2606:4700::1111'],
  };
  /** Every name looked up, as asked. */
  const asked: string[] = [];
  const answer = (name: string): LookupAddress[] => {
    asked.push(name);
    const found = table[name.toLowerCase()];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { asked, answer };
});

vi.mock('node:dns/promises', async (original) => ({
  ...(await original<typeof import('node:dns/promises')>()),
  lookup: async (name: string) => dns.answer(name),
}));

vi.mock('node:dns', async (original) => ({
  ...(await original<typeof import('node:dns')>()),
  lookup: (name: string, _options: unknown, callback: (e: Error | null, a?: LookupAddress[]) => void) => {
    try {
      callback(null, dns.answer(name));
    } catch (error) {
      callback(error as Error);
    }
  },
}));

describe('every spelling of an address', () => {
  it.each([
    // IPv4-compatible ::/96 (RFC 4291 §2.5.5.1, deprecated), whatever is inside.
    ['::7f00:1', false],
    ['::127.0.0.1', false],
    ['::a00:1', false],
    ['::808:808', false],
    // IPv4-translated ::ffff:0:0:0/96 (RFC 2765).
    ['::ffff:0:7f00:1', false],
    ['::ffff:0:127.0.0.1', false],
    ['::ffff:0:808:808', false],
    // Site-local fec0::/10 (RFC 3879, deprecated), and upper-case hex.
    ['fec0::1', false],
    ['FEC0::1', false],
    ['FE80::1', false],
    ['::FFFF:7F00:1', false],
    ['0:0:0:0:0:FFFF:127.0.0.1', false],
    // Outside global unicast 2000::/3, and documentation 3fff::/20 (RFC 9637).
    ['4000::1', false],
    ['5f00::1', false],
    ['3fff::1', false],
    ['1::1', false],
    // Zone ids: scoped, never public.
    ['fe80::1%eth0', false],
    ['2606:4700::1111%1', false],
    // NAT64 well-known prefix: judged by the IPv4 inside (RFC 6052 §3.1); local-use 64:ff9b:1::/48 not.
    ['64:ff9b::7f00:1', false],
    ['64:ff9b::127.0.0.1', false],
    ['64:ff9b::a9fe:a9fe', false],
    ['64:ff9b::808:808', true],
    ['64:ff9b:1::808:808', false],
    // 6to4 and Teredo as a whole.
    ['2002:7f00:1::1', false],
    ['2002:808:808::1', false],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', false],
    ['2001:db8::1', false],
    // Unspecified, brackets, and what only a URL parser would read as IPv4.
    ['0:0:0:0:0:0:0:0', false],
    ['[::1]', false],
    ['[2606:4700::1111]', true],
    ['127.1', false],
    ['0177.0.0.1', false],
    ['0x7f000001', false],
    ['2130706433', false],
    ['127.0.0.1.', false],
    ['', false],
    // Public ones stay public.
    ['2001:4860:4860::8888', true],
    ['2606:4700:4700::1111', true],
    ['::ffff:8.8.8.8', true],
    ['::ffff:808:808', true],
    ['8.8.8.8', true],
  ])('%s: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

describe('webhookTargets "public" at save time, hostile spellings', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ config: undefined, webhookTargets: 'public' });
  });
  afterAll(() => t.close());

  const save = (url: string) => t.api('POST', '/webhooks', { url, events: ['flag.updated'] });

  it.each([
    // IPv6 spellings WHATWG URL keeps as they are (it only compresses and lower-cases).
    'http://[::127.0.0.1]/',
    'http://[::7f00:1]/',
    'http://[::7F00:1]/',
    'http://[::ffff:0:7f00:1]/',
    'http://[::ffff:0:127.0.0.1]/',
    'http://[fec0::1]/',
    'http://[FEC0::1]:8080/hook',
    'http://[::a9fe:a9fe]/latest/meta-data/',
    'http://[4000::1]/',
    'http://[3fff::1]/',
    'http://[64:ff9b::127.0.0.1]/',
    'http://[64:ff9b:1::a00:1]/',
    'http://[0:0:0:0:0:ffff:7f00:1]/',
    'http://[::ffff:169.254.169.254]/',
    'http://[2002:7f00:1::]/',
    'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/',
    'http://[::]/',
    // IPv4 spellings WHATWG URL rewrites to 127.0.0.1 or 0.0.0.0 before the policy sees them.
    'http://0x7f.1/',
    'http://2130706433/',
    'http://0177.0.0.1/',
    'http://127.1/',
    'http://0x7f000001/',
    'http://127.0.0.1./',
    'http://127.0.0.1%2e/',
    'http://%31%32%37.0.0.1/',
    'http://\uff11\uff12\uff17.\uff10.\uff10.\uff11/',
    'http://0/',
    'http://0.0.0.0/',
  ])('refuses the address %s', async (url) => {
    const message = await expectError(await save(url), 400, 'VALIDATION_ERROR');
    expect(message).toContain('"url" is not allowed');
    expect(message).toMatch(/not a public address/);
  });

  it.each([
    ['http://localhost./', 'localhost'],
    ['http://LOCALHOST./', 'localhost'],
    ['http://localhost%2e/', 'localhost'],
    ['http://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54/', 'localhost'],
    ['http://localhost\u3002/', 'localhost'],
    ['http://foo\uff0elocalhost/', 'foo.localhost'],
    ['http://LocalHost.LOCAL./', 'localhost.local'],
    ['http://localhost:4000/hook', 'localhost'],
    ['http://foo.localhost/', 'foo.localhost'],
    ['http://foo.localhost./', 'foo.localhost'],
    ['http://printer.local/', 'printer.local'],
    ['http://metadata.google.internal./', 'metadata.google.internal'],
    ['http://router.home.arpa/', 'router.home.arpa'],
  ])('refuses the special-use name %s without resolving it', async (url, name) => {
    const before = dns.asked.length;
    const message = await expectError(await save(url), 400, 'VALIDATION_ERROR');
    expect(message).toContain('"url" is not allowed');
    expect(message).toContain(`${name} is a special-use name`);
    expect(message).toMatch(/not a public address/);
    expect(dns.asked.slice(before)).toEqual([]);
  });

  it.each(['http://localhost../', 'http://.localhost/', 'http://127.0.0.1../', 'http://a..b.example/'])(
    'refuses %s, a host with an empty label',
    async (url) => {
      const before = dns.asked.length;
      const message = await expectError(await save(url), 400, 'VALIDATION_ERROR');
      expect(message).toContain('"url" is not allowed');
      expect(message).toMatch(/not a valid host name/);
      expect(dns.asked.slice(before)).toEqual([]);
    },
  );

  it.each([
    ['http://private.example/', 'private.example', '10.0.0.7'],
    ['http://private.example./', 'private.example', '10.0.0.7'],
    ['http://PRIVATE.example./', 'private.example', '10.0.0.7'],
    ['http://metadata.example./latest/', 'metadata.example', '169.254.169.254'],
    ['http://mapped.example./', 'mapped.example', '::ffff:7f00:1'],
    ['http://compatible.example/', 'compatible.example', '::7f00:1'],
  ])('refuses %s by what the name, without its trailing dot, resolves to', async (url, name, address) => {
    const message = await expectError(await save(url), 400, 'VALIDATION_ERROR');
    expect(message).toContain(`${name} resolves to ${address}, which is not a public address`);
    expect(dns.asked.at(-1)).toBe(name);
  });

  it('refuses a zone id in the URL as no URL at all', async () => {
    const message = await expectError(await save('http://[fe80::1%25eth0]/'), 400, 'VALIDATION_ERROR');
    expect(message).toContain('"url" must be an absolute http or https URL');
  });

  it.each([
    'http://93.184.216.34/hook',
    'https://[2606:4700::1111]/hook',
    'http://[::ffff:8.8.8.8]/',
    'http://[64:ff9b::5db8:d822]/',
    'http://public.example/',
    'http://public.example./',
    'http://not-resolvable-now.example./',
  ])('accepts %s', async (url) => {
    expect((await save(url)).status).toBe(201);
  });

  it('refuses a change of url to a hostile spelling', async () => {
    const created = await save('http://public.example/');
    const { id } = (await created.json()) as { id: string };
    for (const url of ['http://[::7f00:1]/', 'http://localhost./', 'http://private.example./']) {
      await expectError(await t.api('PATCH', `/webhooks/${id}`, { url }), 400, 'VALIDATION_ERROR');
    }
  });
});

describe('webhookTargets "public" at connect time, hostile spellings', () => {
  const connect = (name: string, options: object = {}) =>
    new Promise<{ error: NodeJS.ErrnoException | null; address: unknown }>((resolve) => {
      publicLookup(name, options, (error, address) => resolve({ error, address }));
    });

  it.each([
    'http://[::7f00:1]/',
    'http://[::ffff:0:7f00:1]/',
    'http://[fec0::1]/',
    'http://localhost./',
    'http://foo.localhost/',
    'http://metadata.google.internal./',
    'http://localhost../',
  ])('refuses %s before connecting', (url) => {
    expect(addressProblem(url)).toMatch(/not a public address|not a valid host name/);
  });

  it.each(['http://93.184.216.34/', 'http://[2606:4700::1111]/', 'http://public.example./'])(
    'lets %s through to the lookup',
    (url) => {
      expect(addressProblem(url)).toBeUndefined();
    },
  );

  it.each(['localhost.', 'foo.localhost', 'printer.local.'])(
    'looks %s up nowhere and fails the connection',
    async (name) => {
      const before = dns.asked.length;
      const { error } = await connect(name);
      expect(error?.code).toBe('ENOTPUBLIC');
      expect(error?.message).toMatch(/not a public address/);
      expect(dns.asked.slice(before)).toEqual([]);
    },
  );

  it('connects a name, without its trailing dot, only to its public addresses', async () => {
    expect(await connect('private.example.', { all: true })).toEqual({
      error: null,
      address: [{ address: '93.184.216.34', family: 4 }],
    });
    expect(dns.asked.at(-1)).toBe('private.example');
    expect((await connect('compatible.example.')).error?.code).toBe('ENOTPUBLIC');
    expect((await connect('mapped.example')).error?.code).toBe('ENOTPUBLIC');
  });
});
