/**
 * The targeting conformance vectors (`test/vectors/targeting/*.json`, `docs/protocol.md` §12):
 * their format and the files, for every runner (the core evaluator, OFREP).
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { FlagSource } from '../../src/core/targeting/compile.js';
import type { Segment } from '../../src/core/targeting/types.js';
import type { User } from '../../src/core/types.js';

/** A user, a flag, and what the user must get. */
export interface VectorCase {
  flag: string;
  user: User;
  why: string;
  value: unknown;
  variant?: string;
  reason: string;
  /** The caller's default, for `ERROR` cases. */
  default?: unknown;
  ruleIndex?: number;
  ruleId?: string;
  prerequisiteKey?: string;
  bucket?: number;
  /** A rule matched, whichever (cases translated from Unleash, which does not say). */
  anyRule?: boolean;
}

export interface VectorFile {
  description: string;
  /** By the key the cases name (a flag's `key` may differ: the same key with two forms). */
  flags: Record<string, FlagSource>;
  segments: Record<string, Segment>;
  cases: VectorCase[];
}

const DIR = new URL('../vectors/targeting/', import.meta.url);

/** Every vector file, by name, in name order. */
export const VECTOR_FILES: ReadonlyArray<readonly [string, VectorFile]> = readdirSync(DIR)
  .filter((name) => name.endsWith('.json'))
  .sort()
  .map((name) => [name, JSON.parse(readFileSync(new URL(name, DIR), 'utf8')) as VectorFile] as const);
