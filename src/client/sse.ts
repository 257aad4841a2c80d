/**
 * A reader of `text/event-stream` bytes by the WHATWG HTML standard's rules ("Server-sent
 * events": parsing an event stream, interpreting it, dispatching its events), fed chunk by chunk
 * as they arrive, cut anywhere. The transport around it is `./stream-attempt.ts`.
 *
 * - UTF-8, decoded as a stream: a character cut between chunks waits for its last bytes;
 *   invalid bytes become U+FFFD; one leading BOM is dropped (the decoder's default).
 * - A line ends with CRLF, LF or CR; a CR that ends one chunk and an LF that starts the next are
 *   one line end. A line still open at the end of the stream is never read.
 * - `name: value` (one space after the colon dropped), a line without a colon is a name with an
 *   empty value, a line starting with a colon is a comment (its name is empty: no field's).
 * - `event` sets the type, `data` adds a line to the data, `id` sets the last event id unless it
 *   holds U+0000, `retry` is the reconnection time when it is all ASCII digits; any other field
 *   is ignored.
 * - A blank line dispatches the event, unless it has no data line: its type (`message` when
 *   none was given), its data lines joined with `\n`, and the last event id, which persists
 *   from event to event; the type and the data start again empty either way. An event that no
 *   blank line ends is never dispatched.
 */

/** Receives each dispatched event. */
export type SseListener = (type: string, data: string, lastEventId: string) => void;

/** A reader that hands each event to `dispatch` (and each valid `retry` to `retry`); feed it every chunk, in order. */
export function sseReader(dispatch: SseListener, retry?: (ms: number) => void): (chunk: Uint8Array) => void {
  const decoder = new TextDecoder();
  /** The line so far, not yet ended. */
  let line = '';
  /** The last text ended with CR: an LF that comes next ends no line. */
  let cr = false;
  let type = '';
  /** Each data line followed by `\n` (empty: no data line). */
  let data = '';
  let id = '';
  return (chunk) => {
    let text = decoder.decode(chunk, { stream: true });
    // Nothing yet (an empty chunk, or part of a character): nothing changes.
    if (!text) return;
    if (cr && text[0] === '\n') text = text.slice(1);
    cr = text.endsWith('\r');
    const lines = text.split(/\r\n?|\n/);
    lines[0] = line + lines[0];
    line = lines.pop()!;
    for (const l of lines) {
      if (l) {
        // The name runs to the first colon (all of the line without one); the value follows it.
        const [, name, value] = /^([^:]*):? ?(.*)/s.exec(l)!;
        if (name === 'event') type = value!;
        else if (name === 'data') data += `${value}\n`;
        else if (name === 'id') {
          if (!value!.includes('\0')) id = value!;
        } else if (name === 'retry' && /^\d+$/.test(value!)) retry?.(+value!);
      } else {
        if (data) dispatch(type || 'message', data.slice(0, -1), id);
        type = data = '';
      }
    }
  };
}
