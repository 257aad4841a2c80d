/**
 * One delivery's attempts (`docs/protocol.md` §8.3 `attemptLog`), newest first: the body sent, the
 * answer's status and the first KiB of its body, and how long it took. Bodies come from the
 * server and from the receiver, so they are hostile input: rendered as text only, isolated from
 * the layout around them, wrapped, and held to a scrolling box that says when there is more.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { dateTime } from '../format.js';
import type { Delivery, DeliveryAttempt } from '../types.js';

const encoder = new TextEncoder();

function byteCount(text: string): string {
  const n = encoder.encode(text).length;
  return `${n.toLocaleString()} ${n === 1 ? 'byte' : 'bytes'}`;
}

/** The JSON sent, indented for reading; anything else as it is. */
function indented(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

/**
 * A body in a box of bounded height. When it does not fit, the box gets scroll shadows and a
 * line under it says so; it is focusable so a keyboard can scroll it.
 */
function Body({ label, note, text }: { label: string; note: string; text: string }) {
  const ref = useRef<HTMLPreElement>(null);
  const [more, setMore] = useState(false);
  useEffect(() => {
    const box = ref.current;
    if (!box) return;
    const measure = () => setMore(box.scrollHeight > box.clientHeight + 1);
    measure();
    // A closed <details> has no size: measure again when it opens or the width changes. An
    // attempt's bodies never change (rows are keyed by attempt), so once on mount is enough.
    const observer = new ResizeObserver(measure);
    observer.observe(box);
    return () => observer.disconnect();
  }, []);
  return (
    <figure class="wire">
      <figcaption>
        {label} <span class="hint-inline">({note})</span>
      </figcaption>
      {text === '' ? (
        <p class="empty">(empty)</p>
      ) : (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling box must be reachable by keyboard
        <pre ref={ref} class={more ? 'wire-text more' : 'wire-text'} tabIndex={0}>
          {text}
        </pre>
      )}
      {more && <p class="hint">Longer than the box: scroll inside it to read the rest.</p>}
    </figure>
  );
}

function answerText(a: DeliveryAttempt): string {
  if (a.statusCode !== null) return String(a.statusCode);
  return 'no answer';
}

function Attempt({ attempt: a }: { attempt: DeliveryAttempt }) {
  return (
    <li class="attempt">
      <h4>
        Attempt {a.attempt}, <time dateTime={a.sentAt}>{dateTime(a.sentAt)}</time>
      </h4>
      <dl class="facts">
        <div>
          <dt>Response status</dt>
          <dd class={a.statusCode !== null && a.statusCode < 300 ? 'ok' : 'problem'}>{answerText(a)}</dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd>{a.durationMs.toLocaleString()} ms</dd>
        </div>
        {a.error !== null && (
          <div>
            <dt>Error</dt>
            <dd>
              <bdi>{a.error}</bdi>
            </dd>
          </div>
        )}
      </dl>
      <Body
        label="Request body sent"
        note={`${byteCount(a.request)}, shown indented`}
        text={indented(a.request)}
      />
      {a.response !== null && (
        <Body label="Response body" note={`first KiB kept: ${byteCount(a.response)}`} text={a.response} />
      )}
    </li>
  );
}

/** What a delivery is about, for its row and for the names of its controls. */
export function subjectText(d: Delivery): string {
  if (d.flag !== null) return `flag ${d.flag}`;
  if (d.segment !== null) return `segment ${d.segment}`;
  return '';
}

/** The expandable part of a delivery's row. */
export function DeliveryAttempts({ delivery: d }: { delivery: Delivery }) {
  const log = d.attemptLog ?? [];
  if (log.length === 0) return <p class="empty">No attempt yet.</p>;
  const what = [d.type, subjectText(d)].filter(Boolean).join(' ');
  return (
    <details class="attempts">
      <summary>
        {log.length === 1 ? '1 attempt' : `${log.length} attempts`} of <bdi>{what}</bdi>: request, response,
        duration
      </summary>
      <ul class="attempt-list">
        {[...log].reverse().map((a) => (
          <Attempt key={a.attempt} attempt={a} />
        ))}
      </ul>
    </details>
  );
}
