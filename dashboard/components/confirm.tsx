/** A yes/no dialog for one action; its failure is shown inside it, its success closes it. */
import { useAction } from '../use-action.js';
import { Dialog } from './dialog.js';
import { ErrorText } from './page-parts.js';

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
  const { busy, error, run } = useAction();
  const confirm = () =>
    run(async () => {
      await action();
      onClose();
    });
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
