/**
 * Bounds on JSON values that arrive from outside (`docs/protocol.md` §3.4): how deep they nest,
 * how many properties and items they hold, how long their texts and arrays are. Walked without
 * recursion, so a value nested a million deep is measured, not a stack overflow.
 */

export interface JsonBounds {
  /** Levels of arrays and objects (a scalar is 0 deep, `[]` is 1). */
  depth: number;
  /** Object properties and array items, all levels together. */
  entries: number;
  /** UTF-16 code units of one string (property names included). */
  text: number;
  /** Items of one array. */
  items: number;
}

/** Why `value` is outside `bounds` (a sentence naming the bound), or `undefined` when it is within. */
export function jsonProblem(value: unknown, bounds: JsonBounds): string | undefined {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  let entries = 0;
  while (stack.length > 0) {
    const { value: v, depth } = stack.pop()!;
    if (typeof v === 'string') {
      if (v.length > bounds.text) return `a text is longer than ${bounds.text} characters`;
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (depth + 1 > bounds.depth) return `it nests deeper than ${bounds.depth} levels`;
    if (Array.isArray(v)) {
      if (v.length > bounds.items) return `an array has more than ${bounds.items} items`;
      entries += v.length;
      if (entries > bounds.entries) return `it has more than ${bounds.entries} properties and items`;
      for (const item of v) stack.push({ value: item, depth: depth + 1 });
      continue;
    }
    for (const key of Object.keys(v)) {
      if (key.length > bounds.text) return `a property name is longer than ${bounds.text} characters`;
      if (++entries > bounds.entries) return `it has more than ${bounds.entries} properties and items`;
      stack.push({ value: (v as Record<string, unknown>)[key], depth: depth + 1 });
    }
  }
  return undefined;
}

/** A flag variant's value (`docs/protocol.md` §3.4): besides its 32 KiB. */
export const VARIANT_BOUNDS: JsonBounds = { depth: 32, entries: 10_000, text: 32 * 1024, items: 10_000 };

/** An evaluation context sent to the server (OFREP, single and bulk alike; §11.2). */
export const CONTEXT_BOUNDS: JsonBounds = { depth: 32, entries: 1000, text: 4096, items: 50 };

/** Bytes of an evaluation context's JSON (UTF-8), all of it (§3.4). */
export const CONTEXT_BYTES = 32 * 1024;
