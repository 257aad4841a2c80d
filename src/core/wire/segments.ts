/**
 * The types of `../schemas/segments.ts`, written by `npm run wire-types`: do not edit; change
 * the schema and run it again.
 */

import type { SegmentRule, SegmentRuleInput } from './targeting.js';

/** `POST /segments`: a key and who is in it (lists default to empty). */
export interface CreateSegmentInput {
  /** Unique in its environment; never changes. */
  key: string;
  description?: string | null;
  /** Users in the segment, by key, whatever its rules say; `null` is `[]`. `included` and `excluded` hold at most 50000 keys in all; duplicates are dropped. */
  included?: string[] | null;
  /** Users out of the segment, by key, whatever its rules say; `null` is `[]`. `included` and `excluded` hold at most 50000 keys in all; duplicates are dropped. */
  excluded?: string[] | null;
  /** A user any rule holds for is in the segment; `null` is `[]`. */
  rules?: SegmentRuleInput[] | null;
}

/** A segment as `GET /segments` answers it (`docs/protocol.md` §12.3). */
export interface SegmentRecord {
  key: string;
  description: string | null;
  included: string[];
  excluded: string[];
  rules: SegmentRule[];
  /** ISO 8601 date and time, UTC */
  createdAt: string;
  /** ISO 8601 date and time, UTC */
  updatedAt: string;
}

/** `PATCH /segments/:key`: each field given replaces the old one whole. */
export interface UpdateSegmentInput {
  description?: string | null;
  /** Users in the segment, by key, whatever its rules say; `null` is `[]`. `included` and `excluded` hold at most 50000 keys in all; duplicates are dropped. */
  included?: string[] | null;
  /** Users out of the segment, by key, whatever its rules say; `null` is `[]`. `included` and `excluded` hold at most 50000 keys in all; duplicates are dropped. */
  excluded?: string[] | null;
  /** A user any rule holds for is in the segment; `null` is `[]`. */
  rules?: SegmentRuleInput[] | null;
}
