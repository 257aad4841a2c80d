/**
 * Text a user wrote (a description, a key's name, a value in the history), shown so it cannot
 * disturb the page: isolated (`<bdi>`, so right-to-left marks and overrides inside it stay
 * inside it) and, when long, shortened with a button that shows it whole.
 */
import { useState } from 'preact/hooks';
import { number } from '../format.js';

interface Props {
  text: string;
  /** Characters shown before "Show all". */
  limit?: number;
  /** Lines shown before "Show all". */
  lines?: number;
  /** What the text is, for the button's name ("the description of checkout"). */
  what: string;
}

/** The first `limit` code points and `lines` lines of `text`, or `text` when it fits. */
export function shorten(text: string, limit: number, lines: number): string {
  const kept = text.split('\n').slice(0, lines).join('\n');
  const points = Array.from(kept);
  const cut = points.length > limit ? points.slice(0, limit).join('') : kept;
  return cut === text ? text : `${cut.trimEnd()}…`;
}

export function LongText({ text, limit = 140, lines = 3, what }: Props) {
  const [open, setOpen] = useState(false);
  const short = shorten(text, limit, lines);
  if (short === text) return <bdi class="user-text">{text}</bdi>;
  return (
    <span class="long-text">
      <bdi class="user-text">{open ? text : short}</bdi>{' '}
      <button type="button" class="link" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? 'Show less' : `Show all ${number(text.length)} characters`}
        <span class="visually-hidden"> of {what}</span>
      </button>
    </span>
  );
}
