/**
 * The chaos suite's model of the flags one writer owns: turns seeded intents into
 * mutations that always change something, and knows the webhook event each one makes
 * (`docs/protocol.md` §8.1).
 */
import type { Rng } from './prng.js';

/** A flag in the management representation (`docs/protocol.md` §3.1). */
export interface ModelFlag {
  key: string;
  type: 'boolean' | 'rollout';
  enabled: boolean;
  percentage?: number;
  description: string | null;
}

export interface Mutation {
  key: string;
  method: 'POST' | 'PATCH' | 'DELETE';
  path: string;
  body?: Record<string, unknown>;
  /** 201, 200 or 204. */
  okStatus: number;
  before: ModelFlag | undefined;
  after: ModelFlag | undefined;
  /** The webhook event it makes, as `eventKey` writes it. */
  event: string;
}

/** What identifies a change in a webhook event: type, action and the flag's fields. */
export function eventKey(type: string, action: string, flag: ModelFlag): string {
  return [type, action, flag.key, flag.type, flag.enabled, flag.percentage ?? '-', flag.description].join(
    '|',
  );
}

/** The same flag, its fields in the representation's order (for comparisons). */
export function canonical(flag: ModelFlag): ModelFlag {
  const out: ModelFlag = {
    key: flag.key,
    type: flag.type,
    enabled: flag.enabled,
    description: flag.description,
  };
  if (flag.type === 'rollout') out.percentage = flag.percentage ?? 0;
  return out;
}

function otherPercentage(rng: Rng, current: number | undefined): number {
  const next = rng.int(101);
  return next === current ? (next + 1) % 101 : next;
}

function otherDescription(rng: Rng, current: string | null): string | null {
  if (current !== null && rng.chance(0.2)) return null;
  const next = `chaos ${rng.int(1_000_000)} ✓`;
  return next === current ? `${next}!` : next;
}

/** The next mutation of `key`, given its current state; it always changes something. */
export function nextMutation(rng: Rng, key: string, current: ModelFlag | undefined): Mutation {
  const path = `/flags/${key}`;
  if (!current) {
    const type = rng.chance(0.5) ? 'boolean' : 'rollout';
    const description = rng.chance(0.5) ? otherDescription(rng, null) : null;
    const after: ModelFlag = { key, type, enabled: false, description };
    const body: Record<string, unknown> = { key, type };
    if (description !== null) body.description = description;
    if (type === 'rollout') {
      after.percentage = rng.chance(0.3) ? 0 : rng.int(101);
      if (after.percentage !== 0 || rng.chance(0.5)) body.percentage = after.percentage;
    }
    return mutation('POST', '/flags', body, 201, key, undefined, canonical(after));
  }
  const kind = rng.weighted<string>([
    [40, () => 'toggle'],
    [20, () => (current.type === 'rollout' ? 'percentage' : 'toggle')],
    [15, () => 'description'],
    [10, () => 'combo'],
    [15, () => 'delete'],
  ]);
  if (kind === 'delete') return mutation('DELETE', path, undefined, 204, key, current, undefined);
  const body: Record<string, unknown> = {};
  if (kind === 'toggle' || kind === 'combo') body.enabled = !current.enabled;
  if (kind === 'percentage' || (kind === 'combo' && current.type === 'rollout'))
    body.percentage = otherPercentage(rng, current.percentage);
  if (kind === 'description' || (kind === 'combo' && rng.chance(0.5)))
    body.description = otherDescription(rng, current.description);
  return mutation('PATCH', path, body, 200, key, current, canonical({ ...current, ...body } as ModelFlag));
}

function mutation(
  method: Mutation['method'],
  path: string,
  body: Record<string, unknown> | undefined,
  okStatus: number,
  key: string,
  before: ModelFlag | undefined,
  after: ModelFlag | undefined,
): Mutation {
  let event: string;
  if (!before) event = eventKey('flag.updated', 'created', after!);
  else if (!after) event = eventKey('flag.updated', 'deleted', before);
  else {
    const type =
      before.enabled === after.enabled ? 'flag.updated' : after.enabled ? 'flag.enabled' : 'flag.disabled';
    event = eventKey(type, 'updated', after);
  }
  return { key, method, path, ...(body ? { body } : {}), okStatus, before, after, event };
}

/** Whether two flags (or absences) are the same. */
export function sameFlag(a: ModelFlag | undefined, b: ModelFlag | undefined): boolean {
  return JSON.stringify(a && canonical(a)) === JSON.stringify(b && canonical(b));
}
