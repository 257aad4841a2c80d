/**
 * The bar under an editor of a flag or a segment: how many changes are unsaved, "Review and
 * save" (opens the review of those changes), "Discard changes", and what the last save said.
 */
import { type Feedback, FeedbackNote } from './feedback.js';

export interface SaveBarProps {
  /** Unsaved changes, as the review lists them. */
  changes: number;
  /** Whether the draft differs from what is saved. */
  dirty: boolean;
  /** A problem that keeps the draft from being reviewed (a field over its limit). */
  blocked?: boolean;
  onReview: () => void;
  onDiscard: () => void;
  /** The last save's outcome. */
  saved: Feedback;
  /** The review button's text (a change request's, where changes need approval). */
  label?: string;
}

export function SaveBar({
  changes,
  dirty,
  blocked = false,
  onReview,
  onDiscard,
  saved,
  label = 'Review and save',
}: SaveBarProps) {
  return (
    <div class="save-bar">
      <span class="dirty">
        {dirty ? `${changes} unsaved ${changes === 1 ? 'change' : 'changes'}` : 'No unsaved changes'}
      </span>
      <button type="button" class="primary" disabled={!dirty || blocked} onClick={onReview}>
        {label}
      </button>
      <button type="button" disabled={!dirty} onClick={onDiscard}>
        Discard changes
      </button>
      <FeedbackNote feedback={saved} />
    </div>
  );
}
