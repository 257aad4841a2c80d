/**
 * The server `flagwire types` and the manifest are tested against: a real reference server with
 * flags of every type, in two environments of project `shop` (so the project's union differs
 * from one environment), a project `lab` that tests change, and a project `clash` whose
 * environments give one key two types.
 */
import { watch } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CreateFlagInput } from '../../src/index.js';
import { startTestServer, type TestServer } from './server.js';

export const TYPEGEN_KEYS = {
  shopProdFull: 'fw_live_ShopProdFull00000000000000000000',
  shopProdRead: 'fw_live_ShopProdRead00000000000000000000',
  shopProdClient: 'fw_live_ShopProdClient000000000000000000',
  shopStageFull: 'fw_live_ShopStageFull0000000000000000000',
  labFull: 'fw_live_LabSandboxFull000000000000000000',
  clashOne: 'fw_live_ClashOneFull00000000000000000000',
  clashTwo: 'fw_live_ClashTwoFull00000000000000000000',
} as const;

const K = TYPEGEN_KEYS;

/** The golden files and the typed-flags fixture project. */
export const TYPED_FLAGS = fileURLToPath(new URL('../fixtures/typed-flags/', import.meta.url));

/**
 * shop/production: one flag of every type, and two json flags (their variants JSON objects, as
 * the server asks, docs/protocol.md §12.1): one whose variants have different shapes (an empty
 * object among them), one whose variants share one shape.
 */
export const PRODUCTION_FLAGS: CreateFlagInput[] = [
  { key: 'new-checkout', type: 'boolean', description: 'The new checkout flow.' },
  { key: 'search-rollout', type: 'rollout', percentage: 25 },
  {
    key: 'theme',
    type: 'string',
    description: 'Colour scheme.\nSee the design system.',
    variants: { dark: 'dark', light: 'light', system: 'system' },
    offVariant: 'light',
  },
  { key: 'max-items', type: 'number', variants: { few: 10, many: 50 }, offVariant: 'few' },
  { key: 'price-factor', type: 'number', variants: { low: 0.9, high: 1.25 }, offVariant: 'high' },
  {
    key: 'banner',
    type: 'json',
    description: 'The home page banner (a */ in a description is escaped).',
    variants: {
      sale: { title: 'Sale', dismissible: true },
      plain: { title: 'Hello', 'link-ids': [1, 2], links: ['a', 'b'] },
      none: {},
    },
    offVariant: 'sale',
  },
  {
    key: 'levels',
    type: 'json',
    variants: { low: { level: 'low' }, high: { level: 'high' } },
    offVariant: 'low',
  },
];

/** shop/staging: a key of production as another boolean type, other variants, and a key of its own. */
export const STAGING_FLAGS: CreateFlagInput[] = [
  { key: 'new-checkout', type: 'rollout', percentage: 50, description: 'The new checkout, in staging.' },
  { key: 'theme', type: 'string', variants: { dark: 'dark', light: 'light', sepia: 'sepia' } },
  { key: 'staging-only', type: 'boolean' },
];

export async function startTypegenServer(): Promise<TestServer> {
  const env = (key: string, ...apiKeys: Array<[string, 'full' | 'read-only' | 'client']>) => ({
    key,
    apiKeys: apiKeys.map(([k, access]) => ({ key: k, access })),
  });
  const t = await startTestServer({
    config: {
      projects: [
        {
          key: 'shop',
          environments: [
            env(
              'production',
              [K.shopProdFull, 'full'],
              [K.shopProdRead, 'read-only'],
              [K.shopProdClient, 'client'],
            ),
            env('staging', [K.shopStageFull, 'full']),
          ],
        },
        { key: 'lab', environments: [env('sandbox', [K.labFull, 'full'])] },
        {
          key: 'clash',
          environments: [env('one', [K.clashOne, 'full']), env('two', [K.clashTwo, 'full'])],
        },
      ],
    },
  });
  const create = async (key: string, flags: CreateFlagInput[]) => {
    for (const flag of flags) {
      const res = await t.api('POST', '/flags', flag, key);
      if (res.status !== 201) throw new Error(`creating ${flag.key}: ${res.status} ${await res.text()}`);
    }
  };
  await create(K.shopProdFull, PRODUCTION_FLAGS);
  await create(K.shopStageFull, STAGING_FLAGS);
  await create(K.clashOne, [{ key: 'mixed', type: 'boolean' }]);
  await create(K.clashTwo, [{ key: 'mixed', type: 'string', variants: { a: 'a' } }]);
  return t;
}

/**
 * Resolves with the file's text once it exists and `predicate` holds, re-reading it whenever its
 * folder changes (an atomic write is a rename there): no polling, no sleep.
 */
export function whenFile(path: string, predicate: (text: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    let done = false;
    const test = async () => {
      const text = await readFile(path, 'utf8').catch(() => undefined);
      if (!done && text !== undefined && predicate(text)) {
        done = true;
        watcher.close();
        resolve(text);
      }
    };
    const watcher = watch(dirname(path), (_event, name) => {
      if (name === null || name === basename(path)) void test().catch(reject);
    });
    void test().catch(reject);
  });
}
