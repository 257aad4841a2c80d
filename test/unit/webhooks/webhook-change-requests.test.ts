/**
 * Webhook receiver and the events of change requests (`docs/protocol.md` §8.1): `checkEnvelope`
 * takes the six `change_request.*` types with their `data` (the request, who did it) and refuses
 * malformed ones naming the field; `constructEvent` and `verifySignature` take a signed one on
 * both HMAC paths; the event narrows on `type`. Also `segment.updated`, whose `data` holds a
 * segment rather than a flag.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { WEBHOOK_EVENT_KINDS } from '../../../src/core/limits.js';
import type { WebhookEventKind } from '../../../src/core/types.js';
import type {
  ChangeRequestAction,
  ChangeRequestEvent,
  ChangeRequestEventData,
  WebhookActor,
  WebhookChangeRequest,
  WebhookEvent,
} from '../../../src/index.js';
import { constructEvent, verifySignature } from '../../../src/index.js';
import { checkEnvelope } from '../../../src/webhooks/envelope.js';
import { hmacSha256Hex as nodeHmac } from '../../../src/webhooks/hmac-node.js';
import { hmacSha256Hex as webHmac } from '../../../src/webhooks/hmac-web.js';
import { createVerifier, type WebhookVerifier } from '../../../src/webhooks/verify.js';
import { WebhookVerificationError } from '../../../src/webhooks/webhook-verification-error.js';

const PATHS: [string, WebhookVerifier][] = [
  ['pure JS', createVerifier(webHmac)],
  ['node:crypto', createVerifier(nodeHmac)],
];
const SECRET = 'whsec_Cr7Lq2Vn8Xc1Kb6Wm3Rt9Jd4Hf0Gs5Ya2Ue7Io3Nx8';
const NOW = 1_800_000_000_000;
const ACTIONS = ['created', 'approved', 'rejected', 'scheduled', 'applied', 'failed'] as const;
/** The state a request is in after each event. */
const STATE_AFTER = {
  created: 'open',
  approved: 'approved',
  rejected: 'rejected',
  scheduled: 'scheduled',
  applied: 'applied',
  failed: 'failed',
} as const;

const sign = (body: string, secret = SECRET) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

const author: WebhookActor = { type: 'user', id: 'usr_0123456789abcdef', name: 'Ada' };
const reviewer: WebhookActor = { type: 'user', id: 'usr_fedcba9876543210', name: 'Grace' };

/** A `change_request.<action>` event as the server sends it. */
function event(action: ChangeRequestAction): ChangeRequestEvent {
  const changeRequest: WebhookChangeRequest = {
    id: 'cr_0123456789abcdef',
    title: 'Turn the new checkout on',
    description: null,
    state: STATE_AFTER[action],
    author,
    changes: [
      { kind: 'flag', key: 'new-checkout', action: 'update', baseVersion: 7 },
      { kind: 'segment', key: 'beta', action: 'create' },
    ],
    reviews:
      action === 'approved' || action === 'rejected'
        ? [
            {
              actor: reviewer,
              decision: action === 'approved' ? 'approve' : 'reject',
              at: '2027-01-15T08:00:00.000Z',
            },
          ]
        : [],
    createdAt: '2027-01-15T07:00:00.000Z',
    updatedAt: '2027-01-15T08:00:00.000Z',
    ...(action === 'scheduled' || action === 'failed' ? { scheduledAt: '2027-01-16T08:00:00.000Z' } : {}),
    ...(action === 'applied'
      ? { appliedAt: '2027-01-15T08:00:00.000Z', appliedBy: reviewer, late: false }
      : {}),
    ...(action === 'failed' ? { failure: 'flag new-checkout moved (version 7, now 8)' } : {}),
  };
  const data: ChangeRequestEventData = {
    action,
    changeRequest,
    actor:
      action === 'created'
        ? author
        : action === 'failed'
          ? { type: 'system', id: 'system', name: 'system' }
          : reviewer,
    ...(action === 'approved' ? { review: { decision: 'approve' as const, comment: 'looks right' } } : {}),
    ...(action === 'rejected' ? { review: { decision: 'reject' as const } } : {}),
  };
  return {
    id: 'evt_cr1',
    type: `change_request.${action}`,
    createdAt: '2027-01-15T08:00:00.000Z',
    webhookId: 'wh_1',
    project: 'acme',
    environment: 'production',
    delivery: { id: 'dlv_1', attempt: 1, sentAt: NOW / 1000 },
    data,
  } as ChangeRequestEvent;
}

// biome-ignore lint/suspicious/noExplicitAny: a copy of an event to break, any field of it
type Breakable = Record<string, any>;

/** `event('approved')` with `change` made to a copy of it. */
function broken(change: (e: Breakable) => void): Record<string, unknown> {
  const copy = structuredClone(event('approved')) as Breakable;
  change(copy);
  return copy;
}

describe('the event kinds', () => {
  it('lists the six change request types, so webhooks can subscribe to them', () => {
    expect(WEBHOOK_EVENT_KINDS).toEqual(
      expect.arrayContaining(ACTIONS.map((action) => `change_request.${action}`)),
    );
    expectTypeOf<ChangeRequestEvent['type']>().toEqualTypeOf<`change_request.${ChangeRequestAction}`>();
    expectTypeOf<ChangeRequestEvent['type']>().toExtend<WebhookEventKind>();
  });
});

describe('checkEnvelope', () => {
  it.each(ACTIONS)('accepts a change_request.%s event', (action) => {
    expect(checkEnvelope(event(action))).toBeUndefined();
  });

  it('accepts the least a change request event must hold (unknown fields allowed)', () => {
    const least = broken((e) => {
      e.data = { action: 'approved', changeRequest: { id: 'cr_1', title: 't', state: 'open' }, actor: {} };
      e.extra = true;
    });
    expect(checkEnvelope(least)).toBeUndefined();
  });

  it.each<[string, (e: Breakable) => void, string]>([
    ['an unknown change_request type', (e) => (e.type = 'change_request.withdrawn'), '"type" must be one of'],
    ['data.action of another event', (e) => (e.data.action = 'rejected'), '"data.action" must be "approved"'],
    ['a flag action', (e) => (e.data.action = 'updated'), '"data.action" must be "approved"'],
    ['no data.action', (e) => delete e.data.action, '"data.action" must be "approved"'],
    ['no data.changeRequest', (e) => delete e.data.changeRequest, '"data.changeRequest" must be an object'],
    ['a flag instead', (e) => (e.data = { action: 'approved', flag: {}, actor: {} }), '"data.changeRequest"'],
    [
      'data.changeRequest an array',
      (e) => (e.data.changeRequest = []),
      '"data.changeRequest" must be an object',
    ],
    ['an id without cr_', (e) => (e.data.changeRequest.id = 'evt_1'), '"data.changeRequest.id" must be'],
    ['a numeric id', (e) => (e.data.changeRequest.id = 42), '"data.changeRequest.id" must be'],
    ['no title', (e) => delete e.data.changeRequest.title, '"data.changeRequest.title" must be'],
    ['an empty title', (e) => (e.data.changeRequest.title = ''), '"data.changeRequest.title" must be'],
    [
      'an unknown state',
      (e) => (e.data.changeRequest.state = 'merged'),
      '"data.changeRequest.state" must be one of',
    ],
    ['no state', (e) => delete e.data.changeRequest.state, '"data.changeRequest.state" must be one of'],
    ['no actor', (e) => delete e.data.actor, '"data.actor" must be an object'],
    ['a string actor', (e) => (e.data.actor = 'usr_1'), '"data.actor" must be an object'],
    ['data null', (e) => (e.data = null), '"data" must be an object'],
  ])('refuses %s', (_what, change, message) => {
    expect(checkEnvelope(broken(change))).toContain(message);
  });

  it('names every state when the state is unknown', () => {
    expect(checkEnvelope(broken((e) => (e.data.changeRequest.state = 'merged')))).toBe(
      '"data.changeRequest.state" must be one of open, approved, scheduled, applied, rejected, withdrawn, failed',
    );
  });

  it('accepts segment.updated with its segment, and refuses one without', () => {
    const segmentEvent = (data: unknown) => ({ ...event('created'), type: 'segment.updated', data });
    const segment = { key: 'beta', description: null, includedCount: 1, excludedCount: 0, ruleCount: 1 };
    for (const action of ['created', 'updated', 'deleted'])
      expect(checkEnvelope(segmentEvent({ action, segment, actor: author }))).toBeUndefined();
    expect(checkEnvelope(segmentEvent({ action: 'test', segment }))).toContain(
      '"data.action" must be one of',
    );
    expect(checkEnvelope(segmentEvent({ action: 'updated' }))).toBe('"data.segment" must be an object');
    expect(checkEnvelope(segmentEvent({ action: 'updated', segment: { key: '' } }))).toBe(
      '"data.segment.key" must be a non-empty string',
    );
  });
});

describe.each(PATHS)('constructEvent and verifySignature (%s HMAC)', (_path, verifier) => {
  it.each(ACTIONS)('take a signed change_request.%s event', (action) => {
    const sent = event(action);
    const body = JSON.stringify(sent);
    expect(verifier.verifySignature(body, sign(body), SECRET)).toBe(true);
    expect(
      verifier.constructEvent(body, { 'x-flagwire-signature': sign(body) }, SECRET, { now: NOW }),
    ).toEqual(sent);
    expect(verifier.constructEvent(new TextEncoder().encode(body), sign(body), SECRET, { now: NOW })).toEqual(
      sent,
    );
  });

  it('refuse a malformed one with invalid_event, naming the field, once the signature is right', () => {
    const body = JSON.stringify(broken((e) => (e.data.changeRequest.id = 'req_1')));
    expect(verifier.verifySignature(body, sign(body), SECRET)).toBe(true);
    let error: unknown;
    try {
      verifier.constructEvent(body, sign(body), SECRET, { now: NOW });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect((error as WebhookVerificationError).code).toBe('invalid_event');
    expect((error as Error).message).toContain('"data.changeRequest.id"');
  });

  it('refuse a change_request event signed under another secret', () => {
    const body = JSON.stringify(event('applied'));
    const other = sign(body, 'whsec_another');
    expect(verifier.verifySignature(body, other, SECRET)).toBe(false);
    expect(() => verifier.constructEvent(body, other, SECRET, { now: NOW })).toThrow(
      expect.objectContaining({ code: 'signature_mismatch' }),
    );
  });
});

describe('the exported functions', () => {
  it('take a signed change request event and narrow it on `type`', () => {
    const body = JSON.stringify(event('approved'));
    expect(verifySignature(body, sign(body), SECRET)).toBe(true);
    const received = constructEvent(body, sign(body), SECRET, { now: NOW });
    expectTypeOf(received).toEqualTypeOf<WebhookEvent>();
    expect(received.type).toBe('change_request.approved');
    if (received.type !== 'change_request.approved') return;
    expectTypeOf(received.data.action).toEqualTypeOf<'approved'>();
    expectTypeOf(received.data.changeRequest).toEqualTypeOf<WebhookChangeRequest>();
    expectTypeOf(received.data.actor).toEqualTypeOf<WebhookActor>();
    expectTypeOf(received.data.review).toEqualTypeOf<
      { decision: 'approve' | 'reject'; comment?: string } | undefined
    >();
    expect(received.data.changeRequest.id).toBe('cr_0123456789abcdef');
    expect(received.data.review).toEqual({ decision: 'approve', comment: 'looks right' });
  });

  it('types each change request event by its type', () => {
    // Type-level only: declared, never called.
    const narrow = (e: WebhookEvent) => {
      if (e.type === 'change_request.failed') {
        expectTypeOf(e.data.action).toEqualTypeOf<'failed'>();
        expectTypeOf(e.data.changeRequest.failure).toEqualTypeOf<string | undefined>();
      }
      if (e.type === 'segment.updated') {
        expectTypeOf(e.data.segment.key).toEqualTypeOf<string>();
        // @ts-expect-error: only a change request event carries a change request
        e.data.changeRequest;
      }
      if (e.type === 'flag.updated') {
        // @ts-expect-error: nor does a flag event
        e.data.changeRequest;
      }
    };
    expectTypeOf(narrow).toBeFunction();
    const onAny = (e: ChangeRequestEvent) => {
      expectTypeOf(e.data.action).toEqualTypeOf<ChangeRequestAction>();
      expectTypeOf(e.data.changeRequest.state).toEqualTypeOf<
        'open' | 'approved' | 'scheduled' | 'applied' | 'rejected' | 'withdrawn' | 'failed'
      >();
      expectTypeOf(e.data.changeRequest.changes[0]!).toEqualTypeOf<{
        kind: 'flag' | 'segment';
        key: string;
        action: 'create' | 'update' | 'delete';
        baseVersion?: number;
      }>();
      // @ts-expect-error: an event's changes carry no bodies
      e.data.changeRequest.changes[0]!.body;
    };
    expectTypeOf(onAny).toBeFunction();
  });
});
