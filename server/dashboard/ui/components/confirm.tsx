/** A yes/no dialog for one action; its failure is shown inside it, its success closes it. */
import { useState } from 'preact/hooks';
import { messageOf } from '../api.js';
import { ErrorText } from './bits.js';
import { Dialog } from './dialog.js';

interface Props {
  title: string;
  text?: string;
  confirmLabel: string;
  danger?: boolean;
  /** Does the work; resolves when it is done. */
  action: () => Promise<unknown>;
  onClose: () => void;
}

export function ConfirmDialog({ title, text, confirmLabel, danger, action, onClose }: Props) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const confirm = async () => {
    setBusy(true);
    try {
      await action();
      onClose();
    } catch (err) {
      setError(messageOf(err));
      setBusy(false);
    }
  };
  return (
    <Dialog title={title} onClose={onClose}>
      {text && <p>{text}</p>}
      <ErrorText message={error} />
      <div class="actions">
        <button type="button" class={danger ? 'danger' : 'primary'} disabled={busy} onClick={confirm}>
          {confirmLabel}
        </button>
        {/* The safe choice has the focus when the dialog opens. */}
        <button type="button" autofocus onClick={onClose}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}
