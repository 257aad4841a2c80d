/**
 * The server of the stream-load benchmark: a flagwire reference server in its own process,
 * like `server-child.mjs`, plus instrumentation of its event streams, done here in the
 * benchmark's process and not in the server's code:
 *
 * - every `200` answer to `GET /sdk/events` is tracked while open, so a sample can sum the
 *   bytes the server holds unsent for streams (`writableLength`), and
 * - every `destroy()` of such an answer while it is open is recorded with the time and the
 *   unsent bytes at that moment. The hub destroys a stream only when its client does not
 *   read (`streamMaxBufferedBytes`); a client leaving closes the socket without it.
 *
 * IPC commands: those of `server-commands.mjs` (start, memory, cpu, close); `sample` → memory
 * without GC, stream count and unsent stream bytes; `cuts { since }` → the recorded cuts (epoch
 * ms ≥ `since`).
 */
import http from 'node:http';
import { serveCommands } from './child.mjs';
import { current, serverCommands } from './server-commands.mjs';

/** Open event-stream answers. */
const streams = new Set();
/** `{ at, buffered }` per stream the server destroyed while it was open. */
const cuts = [];

const writeHead = http.ServerResponse.prototype.writeHead;
http.ServerResponse.prototype.writeHead = function trackedWriteHead(status, ...rest) {
  if (status === 200 && this.req?.url?.startsWith('/sdk/events')) {
    streams.add(this);
    this.once('close', () => streams.delete(this));
  }
  return writeHead.call(this, status, ...rest);
};

const destroy = http.ServerResponse.prototype.destroy;
http.ServerResponse.prototype.destroy = function trackedDestroy(...args) {
  if (streams.has(this) && !this.destroyed) cuts.push({ at: Date.now(), buffered: this.writableLength });
  return destroy.apply(this, args);
};

const commands = {
  ...serverCommands,
  async sample() {
    let buffered = 0;
    let maxBuffered = 0;
    for (const res of streams) {
      buffered += res.writableLength;
      if (res.writableLength > maxBuffered) maxBuffered = res.writableLength;
    }
    return {
      at: Date.now(),
      ...process.memoryUsage(),
      streamCount: current()?.streamCount ?? 0,
      streamBufferedBytes: buffered,
      maxStreamBufferedBytes: maxBuffered,
    };
  },
  async cuts({ since = 0 }) {
    return cuts.filter((c) => c.at >= since);
  },
};

serveCommands(commands);
