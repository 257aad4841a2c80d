/**
 * The targeting conformance vectors (`test/vectors/targeting/*.json`, `docs/protocol.md` §12):
 * their format and the files, for every runner (the core evaluator, OFREP).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { FlagSource } from '../../src/core/targeting/compile.js';
import type { Segment } from '../../src/core/targeting/types.js';
import type { User } from '../../src/core/types.js';
import type { TestServer } from './server.js';

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

/**
 * Creates the file's segments and flags on a server (each flag under the key the cases name, with
 * its own key as salt when they differ); answers the flags the server refused to save.
 */
export async function loadVectors(t: TestServer, file: VectorFile): Promise<Set<string>> {
  const refused = new Set<string>();
  for (const segment of Object.values(file.segments)) {
    const res = await t.api('POST', '/segments', segment);
    expect(res.status, `segment ${segment.key}: ${await res.clone().text()}`).toBe(201);
  }
  const entries = Object.entries(file.flags);
  // Without prerequisites first, then the prerequisites, so parents exist; enabled last.
  for (const [key, flag] of entries) {
    const { version: _v, enabled: _e, prerequisites: _p, ...body } = flag;
    if (key !== flag.key) Object.assign(body, { salt: flag.salt ?? flag.key });
    const res = await t.api('POST', '/flags', { ...body, key });
    if (res.status !== 201) refused.add(key);
  }
  for (const [key, flag] of entries) {
    if (refused.has(key)) continue;
    const patch: Record<string, unknown> = { enabled: flag.enabled };
    if (flag.prerequisites) patch.prerequisites = flag.prerequisites;
    const res = await t.api('PATCH', `/flags/${key}`, patch);
    if (res.status !== 200) refused.add(key);
  }
  // A flag whose prerequisite was refused is not the vector's flag either (half of a cycle).
  for (let grew = true; grew; ) {
    grew = false;
    for (const [key, flag] of entries)
      if (!refused.has(key) && flag.prerequisites?.some((p) => refused.has(p.flag))) {
        refused.add(key);
        grew = true;
      }
  }
  return refused;
}
