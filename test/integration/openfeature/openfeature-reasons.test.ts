/**
 * The reasons table of `docs/protocol.md` §11.2 wherever a reason is given in OpenFeature's words:
 * OFREP's single and bulk answers, `FlagwireProvider` under `@openfeature/server-sdk`, and the
 * SDK's `getDetail` (its `static` mark, from which both providers map). `STATIC` for a flag every
 * user gets the same answer from (no targets, rules, prerequisites or split; a rollout at 0 or
 * 100 % and a split all on one slice included), `DEFAULT` only where targeting exists and the
 * fixed fallthrough served, `SPLIT` where users are split, `TARGETING_MATCH`, `DISABLED`.
 */
import { type EvaluationContext, OpenFeature } from '@openfeature/server-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type FlagwireClient } from '../../../src/index.js';
import { FlagwireProvider } from '../../../src/openfeature/index.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const TEXT = { type: 'string', variants: { a: 'A', b: 'B' } };

/** Flags by key: the management body, and whether it is enabled. */
const FLAGS: Record<string, { body: Record<string, unknown>; enabled: boolean }> = {
  'bool-on': { body: { type: 'boolean' }, enabled: true },
  'bool-off': { body: { type: 'boolean' }, enabled: false },
  'bool-fallthrough': { body: { type: 'boolean', fallthrough: { variant: 'off' } }, enabled: true },
  'rollout-0': { body: { type: 'rollout', percentage: 0 }, enabled: true },
  'rollout-50': { body: { type: 'rollout', percentage: 50 }, enabled: true },
  'rollout-100': { body: { type: 'rollout', percentage: 100 }, enabled: true },
  'text-plain': { body: TEXT, enabled: true },
  'text-fixed': { body: { ...TEXT, fallthrough: { variant: 'b' } }, enabled: true },
  'text-one-slice': {
    body: {
      ...TEXT,
      fallthrough: {
        split: [
          { variant: 'a', weight: 0 },
          { variant: 'b', weight: 100_000 },
        ],
      },
    },
    enabled: true,
  },
  'text-split': {
    body: {
      ...TEXT,
      fallthrough: {
        split: [
          { variant: 'a', weight: 50_000 },
          { variant: 'b', weight: 50_000 },
        ],
      },
    },
    enabled: true,
  },
  'text-rule': {
    body: {
      ...TEXT,
      rules: [{ clauses: [{ attribute: 'plan', op: 'in', values: ['pro'] }], serve: { variant: 'b' } }],
    },
    enabled: true,
  },
  'text-target': { body: { ...TEXT, targets: [{ variant: 'b', keys: ['ann'] }] }, enabled: true },
  'text-gate-open': {
    body: { ...TEXT, prerequisites: [{ flag: 'bool-on', variants: ['on'] }] },
    enabled: true,
  },
  'text-gate-shut': {
    body: { ...TEXT, prerequisites: [{ flag: 'bool-off', variants: ['on'] }] },
    enabled: true,
  },
  'text-disabled': { body: TEXT, enabled: false },
};

/** Flag, context, and the OpenFeature reason every place must give. */
const CASES: Array<[string, EvaluationContext, string]> = [
  ['bool-on', { targetingKey: 'u' }, 'STATIC'],
  ['bool-off', { targetingKey: 'u' }, 'DISABLED'],
  ['bool-fallthrough', { targetingKey: 'u' }, 'STATIC'],
  ['rollout-0', { targetingKey: 'u' }, 'STATIC'],
  ['rollout-0', {}, 'STATIC'],
  ['rollout-50', { targetingKey: 'u' }, 'SPLIT'],
  ['rollout-100', { targetingKey: 'u' }, 'STATIC'],
  ['rollout-100', {}, 'STATIC'],
  ['text-plain', { targetingKey: 'u' }, 'STATIC'],
  ['text-fixed', { targetingKey: 'u' }, 'STATIC'],
  ['text-one-slice', {}, 'STATIC'],
  ['text-split', { targetingKey: 'u' }, 'SPLIT'],
  ['text-rule', { targetingKey: 'u', plan: 'pro' }, 'TARGETING_MATCH'],
  ['text-rule', { targetingKey: 'u' }, 'DEFAULT'],
  ['text-target', { targetingKey: 'ann' }, 'TARGETING_MATCH'],
  ['text-target', { targetingKey: 'u' }, 'DEFAULT'],
  ['text-gate-open', { targetingKey: 'u' }, 'DEFAULT'],
  ['text-gate-shut', { targetingKey: 'u' }, 'DISABLED'],
  ['text-disabled', { targetingKey: 'u' }, 'DISABLED'],
];

let t: TestServer;
let sdk: FlagwireClient;
const DOMAIN = 'reasons-test';

beforeAll(async () => {
  t = await startTestServer({ config: undefined });
  for (const [key, { body, enabled }] of Object.entries(FLAGS)) {
    const made = await t.api('POST', '/flags', { key, ...body });
    expect(made.status, `${key}: ${await made.clone().text()}`).toBe(201);
    if (enabled) expect((await t.api('PATCH', `/flags/${key}`, { enabled })).status).toBe(200);
  }
  sdk = createClient({ baseUrl: t.base, apiKey: t.fullKey, stream: false, logger: false });
  await OpenFeature.setProviderAndWait(DOMAIN, new FlagwireProvider(sdk));
});

afterAll(async () => {
  await OpenFeature.clearProviders();
  await sdk?.close();
  await t?.close();
});

const ofrep = async (path: string, context: EvaluationContext) => {
  const res = await fetch(`${t.server.url}/ofrep/v1/evaluate/flags${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.fullKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ context }),
  });
  return (await res.json()) as Record<string, unknown> & { flags?: Array<Record<string, unknown>> };
};

/** `context` as the SDK's user: the `targetingKey` as `key`. */
const userOf = ({ targetingKey, ...attributes }: EvaluationContext) => ({
  ...attributes,
  key: targetingKey as string | undefined,
});

/** OFREP's answer for an OpenFeature `reason`: it has no `DEFAULT` (§11.2), a marked `TARGETING_MATCH` instead. */
const onOfrep = (key: string, reason: string) =>
  reason === 'DEFAULT'
    ? { key, reason: 'TARGETING_MATCH', metadata: expect.objectContaining({ fallthrough: true }) }
    : { key, reason };

describe.each(CASES)('%s for %j', (key, context, reason) => {
  it(`OFREP single: ${reason}`, async () => {
    expect(await ofrep(`/${key}`, context)).toMatchObject(onOfrep(key, reason));
  });

  it(`OFREP bulk: ${reason}`, async () => {
    const { flags } = await ofrep('', context);
    expect(flags?.find((f) => f.key === key)).toMatchObject(onOfrep(key, reason));
  });

  it(`FlagwireProvider: ${reason}`, async () => {
    const client = OpenFeature.getClient(DOMAIN);
    const details = key.startsWith('text-')
      ? await client.getStringDetails(key, '-', context)
      : await client.getBooleanDetails(key, true, context);
    expect(details).toMatchObject({ flagKey: key, reason });
    expect(details.errorCode).toBeUndefined();
  });

  it(`getDetail: static ${reason === 'STATIC'}`, () => {
    const detail = sdk.getDetail(key, userOf(context), key.startsWith('text-') ? '-' : true);
    expect(detail.static ?? false).toBe(reason === 'STATIC');
  });
});
