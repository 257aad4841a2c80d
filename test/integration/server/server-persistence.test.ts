/** Durable storage (`docs/protocol.md` §7): restarts, compaction, torn tails, config seeding. */
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SdkSnapshot } from '../../../src/core/types.js';
import { expectError } from '../../helpers/assert.js';
import { KEYS, startTestServer, TEST_CONFIG } from '../../helpers/server.js';

const tempDir = () => mkdtempSync(join(tmpdir(), 'flagwire-store-'));

describe('durable storage', () => {
  it('keeps flags, webhooks, keys, epoch and revision across a restart', async () => {
    const dataDir = tempDir();
    const a = await startTestServer({ dataDir, config: undefined });
    await a.api('POST', '/flags', { key: 'persist', type: 'rollout', percentage: 40, description: 'd' });
    await a.api('PATCH', '/flags/persist', { enabled: true });
    await a.api('POST', '/flags', { key: 'gone', type: 'boolean' });
    await a.api('DELETE', '/flags/gone');
    await a.api('POST', '/webhooks', { url: 'https://example.test/h', events: ['flag.updated'] });
    const flags = await (await a.api('GET', '/flags')).json();
    const hooks = await (await a.api('GET', '/webhooks')).json();
    const snap = (await (await a.api('GET', '/sdk/flags')).json()) as SdkSnapshot;
    await a.close();

    const b = await startTestServer({ dataDir, config: undefined });
    try {
      expect([b.fullKey, b.readKey]).toEqual([a.fullKey, a.readKey]);
      expect(await (await b.api('GET', '/flags')).json()).toEqual(flags);
      expect(await (await b.api('GET', '/webhooks')).json()).toEqual(hooks);
      expect(await (await b.api('GET', '/sdk/flags')).json()).toEqual(snap);
      await b.api('PATCH', '/flags/persist', { enabled: false });
      const next = (await (await b.api('GET', '/sdk/flags')).json()) as SdkSnapshot;
      expect(next.epoch).toBe(snap.epoch);
      expect(next.revision).toBe(snap.revision + 1);
    } finally {
      await b.close();
    }
  });

  it('compacts the journal into a snapshot and loses nothing', async () => {
    const dataDir = tempDir();
    const a = await startTestServer({ dataDir, compactAfterEntries: 7 });
    for (let i = 0; i < 30; i++) await a.api('POST', '/flags', { key: `c${i}`, type: 'boolean' });
    await Promise.all(
      Array.from({ length: 30 }, (_, i) => a.api('PATCH', `/flags/c${i}`, { enabled: i % 2 === 0 })),
    );
    // A read waits for pending writes, and so for a compaction under way.
    const flags = await (await a.api('GET', '/flags')).json();
    expect(existsSync(join(dataDir, 'snapshot.json'))).toBe(true);
    expect(statSync(join(dataDir, 'journal.jsonl')).size).toBeLessThan(7 * 400);
    await a.close();
    const b = await startTestServer({ dataDir });
    try {
      expect(await (await b.api('GET', '/flags')).json()).toEqual(flags);
    } finally {
      await b.close();
    }
  });

  it('cuts off a torn journal tail (an unacknowledged write) and keeps every complete entry', async () => {
    const dataDir = tempDir();
    const a = await startTestServer({ dataDir, compactAfterEntries: 1_000_000 });
    await a.api('POST', '/flags', { key: 'before-tear', type: 'boolean' });
    const flags = await (await a.api('GET', '/flags')).json();
    // Simulate a crash mid-write: stop without the close-time compaction, then tear the tail.
    const journal = join(dataDir, 'journal.jsonl');
    const intact = readFileSync(journal, 'utf8');
    await a.close();
    rmSync(join(dataDir, 'snapshot.json'), { force: true });
    writeFileSync(journal, intact);
    appendFileSync(journal, '{"s":99,"o":[{"t":"flag","env":"acme/production","rev":');
    const warnings: string[] = [];
    const b = await startTestServer({
      dataDir,
      logger: { info() {}, warn: (m) => warnings.push(m), error() {} },
    });
    try {
      expect(await (await b.api('GET', '/flags')).json()).toEqual(flags);
      expect(warnings.join('\n')).toContain('unfinished write');
      expect(readFileSync(journal, 'utf8')).toBe(intact);
      expect((await b.api('POST', '/flags', { key: 'after-tear', type: 'boolean' })).status).toBe(201);
    } finally {
      await b.close();
    }
  });

  it('treats config keys as authoritative and config flags as seeds, never overwrites', async () => {
    const dataDir = tempDir();
    const a = await startTestServer({ dataDir });
    await a.api('PATCH', '/flags/seeded', { enabled: false, percentage: 90 });
    await a.close();
    const config = structuredClone(TEST_CONFIG);
    const prod = config.projects[0]!.environments[0]!;
    prod.apiKeys = prod.apiKeys!.filter((k) => k.access === 'full');
    prod.flags!.push({ key: 'new-seed', type: 'rollout', enabled: true, percentage: 5 });
    const b = await startTestServer({ dataDir, config });
    try {
      expect(await (await b.api('GET', '/flags/seeded')).json()).toMatchObject({
        enabled: false,
        percentage: 90,
      });
      expect(await (await b.api('GET', '/flags/new-seed')).json()).toMatchObject({
        enabled: true,
        percentage: 5,
      });
      await expectError(await b.api('GET', '/flags', undefined, KEYS.acmeProdRead), 401, 'UNAUTHORIZED');
    } finally {
      await b.close();
    }
  });

  it('keeps nothing in memory mode', async () => {
    const a = await startTestServer({ memory: true });
    await a.api('POST', '/flags', { key: 'ephemeral', type: 'boolean' });
    await a.close();
    const b = await startTestServer({ memory: true });
    try {
      await expectError(await b.api('GET', '/flags/ephemeral'), 404, 'NOT_FOUND');
    } finally {
      await b.close();
    }
  });

  it('refuses a data dir that another server in this process holds', async () => {
    const dataDir = tempDir();
    const a = await startTestServer({ dataDir });
    try {
      await expect(startTestServer({ dataDir })).rejects.toThrow(/already in use/);
    } finally {
      await a.close();
    }
  });
});
