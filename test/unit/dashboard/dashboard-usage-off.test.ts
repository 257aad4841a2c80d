/**
 * How the dashboard knows usage is off (dashboard/usage/api.ts, `docs/protocol.md` §13.1): from
 * the `usage: false` of the server's `404`, never from its words; every other `404` (an unknown
 * environment's) keeps its own words where the screen must say them.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../dashboard/api.js';
import { isUsageOff, usageRead } from '../../../dashboard/usage/api.js';

/** Every `fetch` answers `status` with `body` as JSON. */
function answer(status: number, body: unknown): void {
  vi.stubGlobal('fetch', async () =>
    Response.json(body, { status, headers: { 'content-type': 'application/json' } }),
  );
}

const PATH = '/admin/api/environments/acme/production/usage/flags';

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('usage off', () => {
  it('is the 404 that says usage: false, whatever its message', async () => {
    answer(404, { error: 'NOT_FOUND', message: 'anything at all', usage: false });
    expect(await usageRead(PATH, true)).toBeNull();
    expect(await usageRead(PATH)).toBeNull();
  });

  it('is not a 404 without the flag, even one whose words once meant it', async () => {
    answer(404, { error: 'NOT_FOUND', message: `no admin route for "${PATH}"` });
    const refused = await usageRead(PATH, true).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect(isUsageOff(refused)).toBe(false);
    expect((refused as ApiError).message).toBe(`no admin route for "${PATH}"`);
    answer(404, { error: 'NOT_FOUND', message: 'environment "acme/nowhere" not found' });
    await expect(usageRead(PATH, true)).rejects.toThrow('environment "acme/nowhere" not found');
    // Where the screen says what is missing itself, any 404 leaves the usage parts out.
    expect(await usageRead(PATH)).toBeNull();
  });

  it('is not another status, nor a usage: false of a status other than 404', async () => {
    answer(503, { error: 'UNAVAILABLE', message: 'the storage is away', usage: false });
    await expect(usageRead(PATH, true)).rejects.toThrow('the storage is away');
    await expect(usageRead(PATH)).rejects.toThrow('the storage is away');
    answer(200, [{ key: 'seeded' }]);
    expect(await usageRead(PATH, true)).toEqual([{ key: 'seeded' }]);
  });
});
