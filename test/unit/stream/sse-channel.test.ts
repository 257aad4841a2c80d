/**
 * The SSE channel under the server's three streams (`server/stream/channel.ts`), on a real
 * `node:http` server with real HTTP clients: the head and the `retry:` line, pings at the
 * configured interval, a client that stops reading cut past the per-stream bound (and, across
 * kinds, past the group's total), a client that leaves taken off the count, and `close()`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type SseChannels, SseGroup } from '../../../server/stream/channel.js';
import { closeServed, connect, serve } from '../../helpers/raw-stream.js';

afterEach(closeServed);

/** Resolves once `holds()` is true, checked whenever a stream of `channels` opens or closes. */
function whenCount(channels: SseChannels<unknown>, holds: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (holds()) return resolve();
    channels.onCountChange(() => {
      if (holds()) resolve();
    });
  });
}

const count = (text: string, part: string) => text.split(part).length - 1;

describe('the SSE channel', () => {
  it('answers the head with the kind’s headers and opens with the retry option’s `retry:` line', async () => {
    const group = new SseGroup({ retryMs: 4321 });
    const channels = group.channels({ headers: { 'cache-control': 'no-store', 'x-kind': 'test' } });
    const url = await serve((req, res) =>
      channels.open(req, res, {
        data: undefined,
        headers: { 'access-control-allow-origin': '*' },
        first: 'event: hello\ndata: {}\n\n',
      }),
    );
    const client = await connect(url);
    expect(client.res.statusCode).toBe(200);
    expect(client.res.headers).toMatchObject({
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
      'x-kind': 'test',
      'access-control-allow-origin': '*',
    });
    await client.until((text) => text.endsWith('\n\n'));
    expect(client.text()).toBe('retry: 4321\nevent: hello\ndata: {}\n\n');
    expect(channels.size).toBe(1);
    client.destroy();
    channels.close();
  });

  it('opens with the `retry:` line alone when the stream has no first frame', async () => {
    const channels = new SseGroup({ retryMs: 250 }).channels();
    const client = await connect(await serve((req, res) => channels.open(req, res, { data: undefined })));
    await client.until((text) => text.endsWith('\n\n'));
    expect(client.text()).toBe('retry: 250\n\n');
    channels.close();
  });

  it('answers HEAD with the head alone and opens no stream', async () => {
    const channels = new SseGroup().channels();
    const url = await serve((req, res) => channels.open(req, res, { data: undefined }));
    const client = await connect(url, { method: 'HEAD' });
    await client.ended;
    expect(client.res.headers['content-type']).toBe('text/event-stream');
    expect(client.text()).toBe('');
    expect(channels.size).toBe(0);
  });

  it('pings every pingIntervalMs: an SSE comment by default, or the kind’s own frame', async () => {
    const group = new SseGroup({ pingIntervalMs: 10 });
    const comments = group.channels();
    const named = group.channels({ ping: 'event: ping\ndata: {}\n\n' });
    const url = await serve((req, res) =>
      (req.url === '/named' ? named : comments).open(req, res, { data: undefined }),
    );
    const a = await connect(`${url}/comments`);
    const b = await connect(`${url}/named`);
    await a.until((text) => count(text, ': ping\n\n') >= 2);
    await b.until((text) => count(text, 'event: ping\ndata: {}\n\n') >= 2);
    expect(a.text()).not.toContain('event: ping');
    group.close();
  });

  it('cuts a client that stops reading once its unsent bytes pass maxBufferedBytes, and keeps the reader', async () => {
    const channels = new SseGroup({ maxBufferedBytes: 64 * 1024, pingIntervalMs: 60_000 }).channels<string>();
    const url = await serve((req, res) => channels.open(req, res, { data: req.url! }));
    const reader = await connect(`${url}/reader`);
    await reader.until((text) => text === 'retry: 1000\n\n');
    await connect(`${url}/stalled`, { paused: true });
    expect(channels.size).toBe(2);
    let cut = false;
    void whenCount(channels, () => ![...channels.all()].some((c) => c.data === '/stalled')).then(() => {
      cut = true;
    });
    // Frames far below the bound, each sent once the reader has the one before: the reader is
    // never behind; the stalled client falls behind once the kernel's buffers are full.
    const frame = `data: ${'x'.repeat(16 * 1024)}\n\n`;
    const base = reader.bytes();
    let sent = 0;
    while (!cut) {
      channels.send(frame);
      sent += 1;
      await reader.until((_, bytes) => bytes >= base + sent * frame.length);
    }
    expect(channels.size).toBe(1);
    expect([...channels.all()].map((c) => c.data)).toEqual(['/reader']);
    channels.send('data: still here\n\n');
    await reader.until((text) => text.endsWith('data: still here\n\n'));
    channels.close();
    await reader.ended;
  });

  it('does not cut a reader that keeps up for one frame larger than maxBufferedBytes', async () => {
    const channels = new SseGroup({ maxBufferedBytes: 1024, pingIntervalMs: 60_000 }).channels();
    const reader = await connect(await serve((req, res) => channels.open(req, res, { data: undefined })));
    await reader.until((text) => text === 'retry: 1000\n\n');
    // A `flags:sync` of an environment with big segments: far over the bound, in one write.
    const big = `data: ${'x'.repeat(512 * 1024)}\n\n`;
    channels.send(big);
    await reader.until((text) => text.endsWith(big));
    channels.send('data: after\n\n');
    await reader.until((text) => text.endsWith('data: after\n\n'));
    expect(channels.size).toBe(1);
    channels.close();
  });

  it('past the group’s total of unsent bytes, cuts the stream furthest behind first, whatever its kind', async () => {
    const group = new SseGroup({
      maxBufferedBytes: 1 << 30,
      maxTotalBufferedBytes: 256 * 1024,
      pingIntervalMs: 60_000,
    });
    const heavy = group.channels<string>();
    const light = group.channels<string>({ counted: false });
    const url = await serve((req, res) =>
      (req.url === '/heavy' ? heavy : light).open(req, res, { data: req.url! }),
    );
    await connect(`${url}/heavy`, { paused: true });
    await connect(`${url}/light`, { paused: true });
    // Both stop reading; one kind is sent four times the other's bytes, so it is furthest behind.
    const frame = `data: ${'x'.repeat(32 * 1024)}\n\n`;
    const firstCut = new Promise<string>((resolve) => {
      heavy.onCountChange(() => resolve('heavy'));
      light.onCountChange(() => resolve('light'));
    });
    let cut: string | undefined;
    void firstCut.then((which) => {
      cut = which;
    });
    while (cut === undefined) {
      for (let i = 0; i < 4; i++) heavy.send(frame);
      light.send(frame);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(cut).toBe('heavy');
    expect(heavy.size).toBe(0);
    expect(light.size).toBe(1);
    group.close();
  });

  it('takes a client that leaves off the count', async () => {
    const channels = new SseGroup().channels();
    const url = await serve((req, res) => channels.open(req, res, { data: undefined }));
    const a = await connect(url);
    const b = await connect(url);
    expect(channels.size).toBe(2);
    a.destroy();
    await whenCount(channels, () => channels.size === 1);
    b.destroy();
    await whenCount(channels, () => channels.size === 0);
  });

  it('counts the kinds that count against maxStreams, and the streams outside the group', async () => {
    const group = new SseGroup({ maxStreams: 2, otherStreams: () => 1 });
    const counted = group.channels();
    const uncounted = group.channels({ counted: false });
    const url = await serve((req, res) =>
      (req.url === '/counted' ? counted : uncounted).open(req, res, { data: undefined }),
    );
    await connect(`${url}/uncounted`);
    expect(group.counted).toBe(1);
    expect(counted.full).toBe(false);
    await connect(`${url}/counted`);
    expect(group.counted).toBe(2);
    expect(counted.full).toBe(true);
    group.close();
  });

  it('ends every stream on close() and refuses later ones', async () => {
    const group = new SseGroup();
    const one = group.channels();
    const other = group.channels();
    const url = await serve((req, res) =>
      (req.url === '/one' ? one : other).open(req, res, { data: undefined }),
    );
    const clients = [await connect(`${url}/one`), await connect(`${url}/one`), await connect(`${url}/other`)];
    expect(one.size + other.size).toBe(3);
    group.close();
    await Promise.all(clients.map((client) => client.ended));
    expect(one.size + other.size).toBe(0);
    await expect(connect(`${url}/one`)).rejects.toThrow();
  });
});
