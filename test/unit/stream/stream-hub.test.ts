/** Unit tests of the SSE fan-out's slow-consumer bound (`docs/protocol.md` §5). */
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { Environment, StoredFlag } from '../../../server/state/kernel/model.js';
import { StreamHub } from '../../../server/stream/hub.js';

/** A response whose peer never reads: every byte written stays buffered. */
class StalledResponse extends EventEmitter {
  writableLength = 0;
  destroyed = false;
  frames: string[] = [];
  writeHead() {
    return this;
  }
  write(frame: string) {
    this.frames.push(frame);
    this.writableLength += Buffer.byteLength(frame);
    return false;
  }
  end() {
    this.emit('close');
  }
  destroy() {
    this.destroyed = true;
    this.emit('close');
  }
}

/** A response whose peer reads everything at once. */
class HealthyResponse extends StalledResponse {
  override write(frame: string) {
    this.frames.push(frame);
    return true;
  }
}

const req = {
  method: 'GET',
  resume() {},
  socket: { setKeepAlive() {}, setNoDelay() {}, once() {}, off() {} },
} as unknown as IncomingMessage;

function environment(): Environment {
  return {
    id: 'p/e',
    project: 'p',
    environment: 'e',
    epoch: 'E',
    revision: 0,
    flags: new Map(),
    webhooks: new Map(),
    deliveries: new Map(),
    segments: new Map(),
    generatedKeys: [],
    source: 'config',
    createdAt: '',
    apiKeys: [],
    history: [],
  };
}

function flag(version: number): StoredFlag {
  return {
    key: 'k'.repeat(100),
    type: 'boolean',
    enabled: version % 2 === 0,
    description: null,
    version,
    createdAt: '',
    updatedAt: '',
  };
}

describe('StreamHub', () => {
  it('cuts a stream that stops reading once its unsent bytes pass the bound, and keeps serving others', () => {
    const hub = new StreamHub({
      pingIntervalMs: 60_000,
      historySize: 10,
      maxBufferedBytes: 4096,
      maxTotalBufferedBytes: 1 << 30,
      retryMs: 1000,
      maxStreams: 10,
    });
    const env = environment();
    hub.addEnvironment(env);
    const slow = new StalledResponse();
    const fast = new HealthyResponse();
    hub.subscribe(env, req, slow as unknown as ServerResponse, undefined);
    hub.subscribe(env, req, fast as unknown as ServerResponse, undefined);
    expect(hub.size).toBe(2);
    let before: StoredFlag | null = null;
    for (let revision = 1; revision <= 200; revision++) {
      const after = flag(revision);
      hub.publish({
        env,
        revision,
        before,
        after,
        at: '',
        actor: { type: 'adminToken', id: 'admin-token', name: 'admin token' },
      });
      before = after;
    }
    expect(slow.destroyed).toBe(true);
    expect(slow.writableLength).toBeLessThan(4096 + 1024);
    expect(fast.destroyed).toBe(false);
    expect(fast.frames.filter((f) => f.includes('flags:updated'))).toHaveLength(200);
    expect(hub.size).toBe(1);
    hub.close();
    expect(hub.size).toBe(0);
  });

  it('past the total budget of unsent bytes, cuts the streams furthest behind first, and only as many as it takes', async () => {
    const budget = 16 * 1024;
    const hub = new StreamHub({
      pingIntervalMs: 60_000,
      historySize: 10,
      maxBufferedBytes: 1 << 20,
      maxTotalBufferedBytes: budget,
      retryMs: 1000,
      maxStreams: 10,
    });
    const env = environment();
    hub.addEnvironment(env);
    const fast = new HealthyResponse();
    hub.subscribe(env, req, fast as unknown as ServerResponse, undefined);
    // Three readers that stop reading, joining one after another: the first is furthest behind.
    const slow: StalledResponse[] = [];
    let before: StoredFlag | null = null;
    let revision = 0;
    const publish = (count: number) => {
      for (let i = 0; i < count; i++) {
        const after = flag(++revision);
        hub.publish({
          env,
          revision,
          before,
          after,
          at: '',
          actor: { type: 'adminToken', id: 'admin-token', name: 'admin token' },
        });
        before = after;
      }
    };
    // The hub checks the total once per turn of the event loop, after the writes left.
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    for (let i = 0; i < 3; i++) {
      const s = new StalledResponse();
      hub.subscribe(env, req, s as unknown as ServerResponse, undefined);
      slow.push(s);
      for (let j = 0; j < 20; j++) {
        publish(1);
        await turn();
      }
    }
    const unsent = () => slow.filter((s) => !s.destroyed).reduce((n, s) => n + s.writableLength, 0);
    expect(unsent()).toBeLessThanOrEqual(budget);
    for (let j = 0; j < 40; j++) {
      publish(1);
      await turn();
    }
    // Each stream alone stays far below maxBufferedBytes; together they passed the budget.
    expect(slow[0]!.destroyed).toBe(true);
    expect(slow[2]!.destroyed).toBe(false);
    expect(unsent()).toBeLessThanOrEqual(budget);
    expect(unsent()).toBeGreaterThan(budget / 2);
    expect(fast.destroyed).toBe(false);
    expect(fast.frames.filter((f) => f.includes('flags:updated'))).toHaveLength(revision);
    hub.close();
  });

  it('keeps only the last historySize frames for resume', () => {
    const hub = new StreamHub({
      pingIntervalMs: 60_000,
      historySize: 5,
      maxBufferedBytes: 1 << 20,
      maxTotalBufferedBytes: 1 << 30,
      retryMs: 1000,
      maxStreams: 10,
    });
    const env = environment();
    hub.addEnvironment(env);
    for (let revision = 1; revision <= 12; revision++) {
      hub.publish({
        env,
        revision,
        before: null,
        after: flag(revision),
        at: '',
        actor: { type: 'adminToken', id: 'admin-token', name: 'admin token' },
      });
    }
    const view = hub.view(env);
    for (const targeting of [false, true]) {
      expect(view.framesSince('E:12', targeting)).toEqual([]);
      expect(view.framesSince('E:7', targeting)).toHaveLength(5);
      expect(view.framesSince('E:6', targeting)).toBeUndefined();
      expect(view.framesSince('E:13', targeting)).toBeUndefined();
      expect(view.framesSince('X:12', targeting)).toBeUndefined();
      expect(view.framesSince('E:1e3', targeting)).toBeUndefined();
    }
    hub.close();
  });
});
