/** Stored segments to their wire representation (`docs/protocol.md` §12.3). */

import type { Segment } from '../../../src/core/targeting/types.js';
import type { StoredSegment } from '../kernel/model.js';

/** A segment as `GET /segments` answers it. */
export function representSegment(segment: StoredSegment): Segment & { createdAt: string; updatedAt: string } {
  const { key, description, included, excluded, rules, createdAt, updatedAt } = segment;
  return { key, description, included, excluded, rules, createdAt, updatedAt };
}
