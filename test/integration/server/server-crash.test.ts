/**
 * Crash safety (`docs/protocol.md` §7): a server under write load is killed with SIGKILL
 * at several moments; after a restart on the same data dir, every write it acknowledged
 * is there.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startCli } from '../../helpers/cli.js';

interface Acked {
  created: Set<string>;
  enabled: Set<string>;
}

/** Writers that create then enable flags until stopped; records what the server acknowledged. */
function writeLoad(url: string, key: string, workers: number, stopAfterAcks: number, onStop: () => void) {
  const acked: Acked = { created: new Set(), enabled: new Set() };
  let acks = 0;
  let stopped = false;
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const ack = () => {
    acks += 1;
    if (acks === stopAfterAcks && !stopped) {
      stopped = true;
      onStop();
    }
  };
  const worker = async (w: number) => {
    for (let i = 0; !stopped; i++) {
      const flag = `w${w}-f${i}`;
      try {
        const created = await fetch(`${url}/api/v1/flags`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ key: flag, type: 'boolean' }),
        });
        if (created.status !== 201) throw new Error(`create answered ${created.status}`);
        acked.created.add(flag);
        ack();
        const enabled = await fetch(`${url}/api/v1/flags/${flag}`, {
          method: 'PATCH',
          headers,
          body: JSON.stringify({ enabled: true }),
        });
        if (enabled.status !== 200) throw new Error(`patch answered ${enabled.status}`);
        acked.enabled.add(flag);
        ack();
      } catch (error) {
        if (!stopped) throw error;
        return;
      }
    }
  };
  return { acked, done: Promise.all(Array.from({ length: workers }, (_, w) => worker(w))) };
}

describe('crash safety', () => {
  it.each([1, 40, 250])(
    'keeps every acknowledged write when killed with SIGKILL after %i acks',
    async (acks) => {
      const dataDir = mkdtempSync(join(tmpdir(), 'flagwire-crash-'));
      const first = await startCli(['--data', dataDir]);
      const load = writeLoad(first.url, first.fullKey, 8, acks, () => first.child.kill('SIGKILL'));
      await load.done;
      expect((await first.exited).signal).toBe('SIGKILL');
      const { acked } = load;
      expect(acked.created.size).toBeGreaterThan(0);

      const second = await startCli(['--data', dataDir]);
      try {
        expect(second.fullKey).toBe(first.fullKey);
        const res = await fetch(`${second.url}/api/v1/flags`, {
          headers: { authorization: `Bearer ${second.fullKey}` },
        });
        const flags = new Map(
          ((await res.json()) as Array<{ key: string; enabled: boolean }>).map((f) => [f.key, f]),
        );
        for (const key of acked.created) expect(flags.has(key), `acknowledged create ${key}`).toBe(true);
        for (const key of acked.enabled)
          expect(flags.get(key)?.enabled, `acknowledged enable ${key}`).toBe(true);
        // The store is consistent: it takes new writes.
        const write = await fetch(`${second.url}/api/v1/flags`, {
          method: 'POST',
          headers: { authorization: `Bearer ${second.fullKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ key: 'after-crash', type: 'boolean' }),
        });
        expect(write.status).toBe(201);
      } finally {
        second.child.kill('SIGTERM');
        await second.exited;
      }
    },
  );
});
