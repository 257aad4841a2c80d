/** Small shared pieces: the error line, the table wrapper, the empty state, the modal backdrop. */
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';

/** A failure message from the server (or the network), announced at once. */
export function ErrorText({ message }: { message: string | undefined }) {
  return message ? (
    <p role="alert" class="error">
      {message}
    </p>
  ) : null;
}

/**
 * Holds a table. `cards`: on a narrow screen each row becomes a card (styles.css), so every
 * action stays in reach without sideways scrolling. Otherwise a wide table scrolls sideways, and
 * says so while it does; the region is named, and focusable while it scrolls, so keyboard users
 * can scroll it too (a table of plain text has nothing else to focus).
 */
export function TableWrap({
  label,
  cards,
  children,
}: {
  label: string;
  cards?: boolean;
  children: ComponentChildren;
}) {
  const ref = useRef<HTMLElement>(null);
  const cue = useId();
  const [wide, setWide] = useState(false);
  useEffect(() => {
    const wrap = ref.current;
    if (!wrap || typeof ResizeObserver === 'undefined') return;
    const measure = () => setWide(wrap.scrollWidth > wrap.clientWidth + 1);
    const observer = new ResizeObserver(measure);
    observer.observe(wrap);
    if (wrap.firstElementChild) observer.observe(wrap.firstElementChild);
    return () => observer.disconnect();
  }, []);
  return (
    <>
      <section
        ref={ref}
        class={cards ? 'table-wrap cards' : 'table-wrap'}
        aria-label={label}
        aria-describedby={wide ? cue : undefined}
        tabIndex={wide ? 0 : undefined}
      >
        {children}
      </section>
      {wide && (
        <p id={cue} class="hint scroll-cue">
          <span aria-hidden="true">↔ </span>The table is wider than the window: scroll it sideways to see
          every column.
        </p>
      )}
    </>
  );
}

/** A cell's column name, shown only where the row is a card (a phone), whose header row is hidden. */
export function CellLabel({ text }: { text: string }) {
  return (
    <span class="cell-label" aria-hidden="true">
      {text}
    </span>
  );
}

/** What an empty list means, and the next step (a button or a link). */
export function EmptyState({ text, children }: { text: string; children?: ComponentChildren }) {
  return (
    <div class="empty-state">
      <p class="empty">{text}</p>
      {children}
    </div>
  );
}

/** Focuses the element with `id` (the first field of a form the empty state points to). */
export function focusById(id: string): void {
  const target = document.getElementById(id);
  target?.scrollIntoView({ block: 'center' });
  target?.focus();
}

/**
 * The screen behind an open modal dialog. `showModal()` already makes it inert; `aria-hidden`
 * says so to tools that only read the DOM, so the dialog's controls are the only ones with
 * their names (the webhook form and the events dialog share checkbox labels).
 */
export function Behind({ dialogOpen, children }: { dialogOpen: boolean; children: ComponentChildren }) {
  return <div aria-hidden={dialogOpen ? 'true' : undefined}>{children}</div>;
}
