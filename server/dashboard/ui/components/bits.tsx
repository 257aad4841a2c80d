/** Small shared pieces: the error line, the scrolling table wrapper, the modal backdrop. */
import type { ComponentChildren } from 'preact';

/** A failure message from the server (or the network), announced at once. */
export function ErrorText({ message }: { message: string | undefined }) {
  return message ? (
    <p role="alert" class="error">
      {message}
    </p>
  ) : null;
}

/**
 * Lets a wide table scroll sideways on a narrow screen. Focusable and named, so keyboard users
 * can scroll it too (a table of plain text has nothing else to focus).
 */
export function TableWrap({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
    <section class="table-wrap" aria-label={label} tabIndex={0}>
      {children}
    </section>
  );
}

/**
 * The screen behind an open modal dialog. `showModal()` already makes it inert; `aria-hidden`
 * says so to tools that only read the DOM, so the dialog's controls are the only ones with
 * their names (the webhook form and the events dialog share checkbox labels).
 */
export function Behind({ dialogOpen, children }: { dialogOpen: boolean; children: ComponentChildren }) {
  return <div aria-hidden={dialogOpen ? 'true' : undefined}>{children}</div>;
}
