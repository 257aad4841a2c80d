/**
 * The length of a piece of user text against the server's limit, shown under its input and
 * named by it (`aria-describedby`). Text over the limit is kept as typed or pasted, never cut:
 * the count says by how much it is over, an alert says so once, and the form will not send it.
 */
import { number } from '../format.js';

/** Length as the server counts it (UTF-16 code units, as `String.length`). */
export const overBy = (text: string, max: number): number => Math.max(0, text.length - max);

export function CharCount({ id, text, max }: { id: string; text: string; max: number }) {
  const over = overBy(text, max);
  return (
    <>
      <small id={id} class={over > 0 ? 'count problem' : 'count hint'}>
        {number(text.length)} / {number(max)} characters
        {over > 0 && ` (${number(over)} too many)`}
      </small>
      {over > 0 && (
        <small role="alert" class="problem">
          Too long: at most {number(max)} characters. Shorten it to save; nothing was cut.
        </small>
      )}
    </>
  );
}
