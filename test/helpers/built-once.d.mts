/** Written last into a finished folder. */
export const MARKER: string;

/**
 * Makes sure `dir` holds a finished build: reuses it, or builds it with `fill(building)` into a
 * new sibling, marks it and renames it into place. Answers whether this call built it.
 */
export function buildOnce(
  dir: string,
  fill: (building: string) => Promise<void>,
  options?: { marker?: string; isComplete?: (dir: string) => boolean },
): Promise<boolean>;
