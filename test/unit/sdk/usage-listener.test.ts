/**
 * `client.on('evaluation')`: called synchronously with the key, value, variant,
 * reason, version and user of every single-flag evaluation; a throwing listener is logged and
 * never changes the value; what a listener changes is not what the caller gets; `exposure`
 * calls it once per flag, user and value, remembering the 10,000 most recent; unsubscribing by
 * the returned function (which takes it off the signal too) or a signal.
 * And `flagwire/otel`: the same evaluation as OpenTelemetry's `feature_flag.*` attributes, checked
 * against OpenFeature's own `createEvaluationEvent`.
 */
import { execFileSync } from 'node:child_process';
import { getEventListeners } from 'node:events';
import { fileURLToPath } from 'node:url';
import { createEvaluationEvent } from '@openfeature/core';
import { describe, expect, it } from 'vitest';
import { createClient, type EvaluationEvent, type SdkSnapshot } from '../../../src/index.js';
import { evaluationAttributes, evaluationEvent } from '../../../src/otel/index.js';

const SNAPSHOT: SdkSnapshot = {
  revision: 9,
  epoch: 'e1',
  eventId: 'e1:9',
  flags: {
    on: { key: 'on', type: 'boolean', enabled: true, version: 3 },
    half: { key: 'half', type: 'rollout', enabled: true, percentage: 50, version: 4 },
    banner: {
      key: 'banner',
      type: 'string',
      enabled: true,
      version: 8,
      variants: { blue: 'blue', red: 'red' },
      fallthrough: { variant: 'red' },
      rules: [
        {
          id: 'gold',
          clauses: [{ attribute: 'plan', op: 'in', values: ['gold'] }],
          serve: { variant: 'blue' },
        },
      ],
    },
    config: { key: 'config', type: 'json', enabled: true, version: 5, variants: { a: { deep: [1] } } },
  },
  segments: {},
};

function offlineClient(errors: string[] = []) {
  return createClient({
    baseUrl: 'http://127.0.0.1:1/api/v1',
    apiKey: 'fw_live_x',
    offline: true,
    bootstrap: SNAPSHOT,
    logger: { warn() {}, error: (m) => errors.push(m) },
  });
}

describe("on('evaluation')", () => {
  it('is called synchronously, before the value returns, with what was evaluated for whom', () => {
    const c = offlineClient();
    const events: EvaluationEvent[] = [];
    c.on('evaluation', (e) => events.push(e));
    const user = { key: 'u1', plan: 'gold' };
    expect(c.getString('banner', user, 'none')).toBe('blue');
    expect(events).toEqual([
      expect.objectContaining({
        key: 'banner',
        value: 'blue',
        variant: 'blue',
        reason: 'RULE_MATCH',
        ruleId: 'gold',
        version: 8,
        user,
      }),
    ]);
    c.isEnabled('on', 'u2');
    c.isEnabledDetail('half', { key: 'u3' });
    c.getJson('config', undefined, {});
    c.getNumber('missing', undefined, 7);
    expect(events.slice(1).map((e) => [e.key, e.value, e.variant, e.reason, e.version, e.user])).toEqual([
      ['on', true, 'on', 'ON', 3, 'u2'],
      // isEnabledDetail names no variant, as it never has.
      [
        'half',
        events[2]!.value,
        undefined,
        events[2]!.value ? 'ROLLOUT_IN' : 'ROLLOUT_OUT',
        4,
        { key: 'u3' },
      ],
      ['config', { deep: [1] }, 'a', 'ON', 5, undefined],
      ['missing', 7, undefined, 'FLAG_NOT_FOUND', undefined, undefined],
    ]);
    c.allFlags();
    expect(events).toHaveLength(5);
  });

  it('logs a throwing listener, keeps calling the others, and never changes the value', () => {
    const errors: string[] = [];
    const c = offlineClient(errors);
    const seen: unknown[] = [];
    c.on('evaluation', (e) => {
      (e as { value: unknown }).value = 'tampered';
      throw new Error('listener bug');
    });
    c.on('evaluation', (e) => seen.push(e.value));
    expect(c.getString('banner', { key: 'u', plan: 'free' }, 'none')).toBe('red');
    expect(c.getDetail('banner', { key: 'u', plan: 'free' }, 'none').value).toBe('red');
    expect(seen).toEqual(['red', 'red']);
    expect(errors).toEqual([
      expect.stringContaining('"evaluation" listener threw: Error: listener bug'),
      expect.stringContaining('"evaluation" listener threw: Error: listener bug'),
    ]);
  });

  it('with exposure: once per flag, user and value', () => {
    const c = offlineClient();
    const exposures: string[] = [];
    const all: string[] = [];
    c.on('evaluation', (e) => exposures.push(`${e.key}:${String(e.value)}`), { exposure: true });
    c.on('evaluation', (e) => all.push(e.key));
    for (let i = 0; i < 3; i++) {
      c.getString('banner', { key: 'a', plan: 'gold' }, 'none');
      c.getString('banner', { key: 'b', plan: 'gold' }, 'none');
    }
    c.getString('banner', { key: 'a', plan: 'free' }, 'none');
    expect(exposures).toEqual(['banner:blue', 'banner:blue', 'banner:red']);
    expect(all).toHaveLength(7);
  });

  it('with exposure: remembers the 10,000 evaluated most recently, the least recently evaluated forgotten first', () => {
    const c = offlineClient();
    const heard: string[] = [];
    c.on('evaluation', (e) => heard.push(e.user as string), { exposure: true });
    for (let i = 0; i < 10_000; i++) c.isEnabled('on', `u${i}`);
    // u0 evaluated again: the most recent now, so u1 is the least recent.
    c.isEnabled('on', 'u0');
    c.isEnabled('on', 'u10000');
    expect(heard).toHaveLength(10_001);
    heard.length = 0;
    // Forgotten: u1 alone. Remembered: every other (a clear-all at 10,000 forgot them all).
    for (const user of ['u0', 'u2', 'u9999', 'u10000', 'u1']) c.isEnabled('on', user);
    expect(heard).toEqual(['u1']);
  });

  it('stops with the function it returned, or its signal', () => {
    const c = offlineClient();
    let calls = 0;
    const off = c.on('evaluation', () => calls++);
    const controller = new AbortController();
    c.on('evaluation', () => calls++, { signal: controller.signal });
    c.isEnabled('on');
    off();
    controller.abort();
    c.isEnabled('on');
    expect(calls).toBe(2);
    const aborted = new AbortController();
    aborted.abort();
    c.on('evaluation', () => calls++, { signal: aborted.signal });
    c.isEnabled('on');
    expect(calls).toBe(2);
  });

  it("takes its listener off the caller's signal when unsubscribed by the function it returned", () => {
    const c = offlineClient();
    const controller = new AbortController();
    const offs = ['evaluation', 'change', 'error'].map((event) =>
      c.on(event as 'change', () => {}, { signal: controller.signal }),
    );
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(3);
    for (const off of offs) off();
    // A long-lived signal (an app's) holds nothing of a listener once it is off.
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});

describe('flagwire/otel', () => {
  const hook = (flagKey: string, targetingKey?: string) =>
    ({
      flagKey,
      providerMetadata: { name: 'Flagwire' },
      context: targetingKey === undefined ? {} : { targetingKey },
    }) as never;

  it('names an evaluation with the semantic conventions, as OpenFeature does', () => {
    const c = offlineClient();
    const events: EvaluationEvent[] = [];
    c.on('evaluation', (e) => events.push(e));
    c.getString('banner', { key: 'u1', plan: 'gold' }, 'none');
    c.getJson('config', 'u2', {});
    c.isEnabled('half', { key: 'u3' });
    c.getNumber('missing', undefined, 7);
    const [banner, config, half, missing] = events;
    expect(evaluationEvent(banner!, { contextId: true })).toEqual(
      createEvaluationEvent(hook('banner', 'u1'), {
        flagKey: 'banner',
        value: 'blue',
        variant: 'blue',
        reason: 'TARGETING_MATCH',
        flagMetadata: { version: '8' },
      } as never),
    );
    expect(evaluationAttributes(config!)).toEqual({
      'feature_flag.key': 'config',
      'feature_flag.provider.name': 'Flagwire',
      'feature_flag.result.reason': 'static',
      'feature_flag.result.variant': 'a',
      'feature_flag.result.value': '{"deep":[1]}',
      'feature_flag.version': '5',
    });
    expect(evaluationAttributes(half!, { setId: 'acme/production' })).toMatchObject({
      'feature_flag.result.reason': 'split',
      'feature_flag.set.id': 'acme/production',
    });
    expect(evaluationAttributes(half!)).not.toHaveProperty('feature_flag.context.id');
    expect(evaluationAttributes(missing!)).toEqual({
      'feature_flag.key': 'missing',
      'feature_flag.provider.name': 'Flagwire',
      'feature_flag.result.reason': 'error',
      'feature_flag.result.value': 7,
      'error.type': 'flag_not_found',
    });
  });

  it('is a subpath of the built package, for import and require', () => {
    const root = fileURLToPath(new URL('../../..', import.meta.url));
    const run = (args: string[]) =>
      execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8' }).trim();
    expect(
      run([
        '--input-type=module',
        '-e',
        "import { evaluationEvent } from 'flagwire/otel'; console.log(typeof evaluationEvent)",
      ]),
    ).toBe('function');
    expect(run(['-e', "console.log(typeof require('flagwire/otel').evaluationAttributes)"])).toBe('function');
  });
});
