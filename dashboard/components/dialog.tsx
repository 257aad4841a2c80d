/**
 * A modal confirmation: the native `<dialog>` opened with `showModal()` (focus trap, Escape,
 * the rest of the page inert), named by its heading. Mounted only while open; focus goes back
 * to what opened it, or to the screen's heading when that is gone (a deleted row).
 */
import type { ComponentChildren } from 'preact';
import { useId, useLayoutEffect, useRef } from 'preact/hooks';

interface Props {
  title: string;
  onClose: () => void;
  children: ComponentChildren;
}

export function Dialog({ title, onClose, children }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  useLayoutEffect(() => {
    const dialog = ref.current;
    const opener = document.activeElement;
    if (dialog && !dialog.open) dialog.showModal();
    return () => {
      if (dialog?.open) dialog.close();
      if (opener instanceof HTMLElement && opener.isConnected) opener.focus();
      else focusScreenHeading();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      aria-labelledby={id}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      <h2 id={id}>{title}</h2>
      {children}
    </dialog>
  );
}

function focusScreenHeading(): void {
  const heading = document.querySelector<HTMLElement>('main h2');
  if (!heading) return;
  heading.tabIndex = -1;
  heading.focus();
}
