/**
 * The scheduler of change requests (`server/state/changes/scheduler.ts`, `docs/protocol.md`
 * §10.7) against a stand-in service and vitest's fake timers: it applies what is due, sleeps
 * until the earliest time it knows of (or `pollMs`), wakes when a request is scheduled anywhere,
 * tries again after a failed apply, and stops when closed.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ChangeRequestService } from '../../../server/state/changes/change-request-service.js';
import { ChangeScheduler } from '../../../server/state/changes/scheduler.js';
import type { Environment } from '../../../server/state/kernel/model.js';

const ENV = { id: 'acme/production' } as Environment;

/** A service whose scheduled requests are `due` (id → epoch ms); applying one removes it. */
function standIn(due: Map<string, number>, fail = new Set<string>()) {
  const applied: string[] = [];
  const service = {
    scheduledOf: () => [...due].map(([id, at]) => ({ id, at })),
    applyDue: async (_env: Environment, id: string) => {
      if (fail.has(id)) {
        fail.delete(id);
        throw new Error('storage unavailable');
      }
      applied.push(id);
      due.delete(id);
      return true;
    },
  } as unknown as ChangeRequestService;
  return { service, applied };
}

let scheduler: ChangeScheduler | undefined;
beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(async () => {
  await scheduler?.close();
  vi.useRealTimers();
});

describe('the change request scheduler', () => {
  it('applies what is due at once, and the rest at their times', async () => {
    const due = new Map([
      ['past', -5],
      ['soon', 1_000],
      ['later', 5_000],
    ]);
    const { service, applied } = standIn(due);
    scheduler = new ChangeScheduler(service, {
      environments: () => [ENV],
      now: Date.now,
      pollMs: 60_000,
      onError: () => {},
    });
    scheduler.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(applied).toEqual(['past']);
    await vi.advanceTimersByTimeAsync(999);
    expect(applied).toEqual(['past']);
    await vi.advanceTimersByTimeAsync(1);
    expect(applied).toEqual(['past', 'soon']);
    await vi.advanceTimersByTimeAsync(4_000);
    expect(applied).toEqual(['past', 'soon', 'later']);
  });

  it('looks again every pollMs, and at once when told a request was scheduled', async () => {
    const due = new Map<string, number>();
    const { service, applied } = standIn(due);
    scheduler = new ChangeScheduler(service, {
      environments: () => [ENV],
      now: Date.now,
      pollMs: 10_000,
      onError: () => {},
    });
    scheduler.start();
    await vi.advanceTimersByTimeAsync(0);
    // Scheduled by another instance: seen at the next look.
    due.set('elsewhere', 2_000);
    await vi.advanceTimersByTimeAsync(9_999);
    expect(applied).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(applied).toEqual(['elsewhere']);
    // Committed anywhere as scheduled: it wakes at once.
    due.set('now', 0);
    scheduler.committed({ t: 'cr', cr: { state: 'scheduled' } } as never);
    await vi.advanceTimersByTimeAsync(0);
    expect(applied).toEqual(['elsewhere', 'now']);
    // Other ops wake nothing.
    due.set('quiet', 0);
    scheduler.committed({ t: 'flag' } as never);
    await vi.advanceTimersByTimeAsync(0);
    expect(applied).toEqual(['elsewhere', 'now']);
  });

  it('reports a failed apply and tries it again after pollMs; closed, it applies nothing', async () => {
    const due = new Map([['flaky', 0]]);
    const errors: unknown[] = [];
    const { service, applied } = standIn(due, new Set(['flaky']));
    scheduler = new ChangeScheduler(service, {
      environments: () => [ENV],
      now: Date.now,
      pollMs: 3_000,
      onError: (error) => errors.push(error),
    });
    scheduler.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(errors).toHaveLength(1);
    expect(applied).toEqual([]);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(applied).toEqual(['flaky']);

    due.set('after-close', 10_000);
    await scheduler.close();
    await vi.advanceTimersByTimeAsync(20_000);
    expect(applied).toEqual(['flaky']);
  });
});
