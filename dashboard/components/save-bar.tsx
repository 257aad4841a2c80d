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
}

export function SaveBar({ changes, dirty, blocked = false, onReview, onDiscard, saved }: SaveBarProps) {
  return (
    <div class="save-bar">
      <span class="dirty">
        {dirty ? `${changes} unsaved ${changes === 1 ? 'change' : 'changes'}` : 'No unsaved changes'}
      </span>
      <button type="button" class="primary" disabled={!dirty || blocked} onClick={onReview}>
        Review and save
      </button>
      <button type="button" disabled={!dirty} onClick={onDiscard}>
        Discard changes
      </button>
      <FeedbackNote feedback={saved} />
    </div>
  );
}
