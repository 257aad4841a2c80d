/**
 * Which flags a change reaches beyond itself (`docs/protocol.md` §12.5): a flag whose rules name a
 * changed segment, or that lists a changed flag as a prerequisite, may now answer differently, and
 * so may the flags that list it, to any depth. The client fires `change` for each of them.
 */
import type { SdkFlag } from '../core/types.js';

const list = (value: unknown): readonly unknown[] => (Array.isArray(value) ? value : []);

/** Whether `flag` names one of `segments` in a clause (a shape it cannot read names none). */
function namesSegment(flag: SdkFlag, segments: ReadonlySet<string>): boolean {
  for (const rule of list(flag.rules))
    for (const clause of list((rule as { clauses?: unknown })?.clauses)) {
      const { op, values } = (clause ?? {}) as { op?: unknown; values?: unknown };
      if (op === 'inSegment' && list(values).some((key) => segments.has(key as string))) return true;
    }
  return false;
}

/**
 * The keys of the flags (of `all`) not in `flags` whose answers may change when the flags `flags`
 * and the segments `segments` change.
 */
export function dependents(
  all: Iterable<SdkFlag>,
  flags: ReadonlySet<string>,
  segments: ReadonlySet<string>,
): string[] {
  const candidates = [...all].filter(
    (flag) => !flags.has(flag.key) && (list(flag.prerequisites).length > 0 || list(flag.rules).length > 0),
  );
  const found = new Set<string>();
  const reached = (key: string) => flags.has(key) || found.has(key);
  // Until nothing is added: each pass adds at least one flag, so at most `candidates.length` passes.
  for (let grew = true; grew; ) {
    grew = false;
    for (const flag of candidates) {
      if (found.has(flag.key)) continue;
      const prerequisite = list(flag.prerequisites).some((p) =>
        reached((p as { flag?: string })?.flag ?? ''),
      );
      if (prerequisite || (segments.size > 0 && namesSegment(flag, segments))) {
        found.add(flag.key);
        grew = true;
      }
    }
  }
  return [...found];
}
