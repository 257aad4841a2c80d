/**
 * A unified diff of two texts, line by line, for `--check`: what is on disk (`-`) against what
 * would be written (`+`), in hunks with two lines of context. The common start and end are
 * skipped first; what is left is compared by longest common subsequence (and shown whole as
 * removed and added when it is too large for that).
 */

type Op = { type: ' ' | '-' | '+'; line: string; a: number; b: number };

const CONTEXT = 2;
/** Past this many cells the middle is shown as removed and added whole. */
const MAX_CELLS = 4_000_000;

/** The edit script turning `a` into `b`. */
function edits(a: readonly string[], b: readonly string[]): Op[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const ops: Op[] = [];
  for (let i = 0; i < start; i++) ops.push({ type: ' ', line: a[i]!, a: i, b: i });
  const n = endA - start;
  const m = endB - start;
  if (n * m > MAX_CELLS) {
    for (let i = start; i < endA; i++) ops.push({ type: '-', line: a[i]!, a: i, b: start });
    for (let j = start; j < endB; j++) ops.push({ type: '+', line: b[j]!, a: endA, b: j });
  } else {
    // lcs[i][j]: the longest common subsequence of a[start+i..endA) and b[start+j..endB).
    const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lcs[i]![j] =
          a[start + i] === b[start + j]
            ? lcs[i + 1]![j + 1]! + 1
            : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a[start + i] === b[start + j]) {
        ops.push({ type: ' ', line: a[start + i]!, a: start + i, b: start + j });
        i++;
        j++;
      } else if (i < n && (j === m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) {
        // Removals before additions, as diff(1) shows a replaced line.
        ops.push({ type: '-', line: a[start + i]!, a: start + i, b: start + j });
        i++;
      } else {
        ops.push({ type: '+', line: b[start + j]!, a: start + i, b: start + j });
        j++;
      }
    }
  }
  for (let i = endA; i < a.length; i++) ops.push({ type: ' ', line: a[i]!, a: i, b: i - endA + endB });
  return ops;
}

/** Lines of a text (a final newline ends the last line, it does not start another). */
const linesOf = (text: string): string[] => {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
};

/**
 * The diff from `before` to `after` as unified-diff text under `--- beforeName` and
 * `+++ afterName` headers, with how many lines were removed and added; empty when they are equal.
 */
export function unifiedDiff(
  before: string,
  after: string,
  beforeName: string,
  afterName: string,
): { text: string; removed: number; added: number } {
  const ops = edits(linesOf(before), linesOf(after));
  const changed = ops.flatMap((op, index) => (op.type === ' ' ? [] : [index]));
  if (changed.length === 0) return { text: '', removed: 0, added: 0 };
  const out = [`--- ${beforeName}`, `+++ ${afterName}`];
  let k = 0;
  while (k < changed.length) {
    // One hunk: changes whose contexts touch.
    const first = Math.max(0, changed[k]! - CONTEXT);
    let last = changed[k]!;
    while (k + 1 < changed.length && changed[k + 1]! - last <= 2 * CONTEXT + 1) last = changed[++k]!;
    k++;
    const hunk = ops.slice(first, Math.min(ops.length, last + CONTEXT + 1));
    const lengthA = hunk.filter((op) => op.type !== '+').length;
    const lengthB = hunk.filter((op) => op.type !== '-').length;
    const startA = hunk[0]!.a + (lengthA === 0 ? 0 : 1);
    const startB = hunk[0]!.b + (lengthB === 0 ? 0 : 1);
    out.push(`@@ -${startA},${lengthA} +${startB},${lengthB} @@`);
    for (const op of hunk) out.push(`${op.type}${op.line}`);
  }
  const removed = ops.filter((op) => op.type === '-').length;
  const added = ops.filter((op) => op.type === '+').length;
  return { text: `${out.join('\n')}\n`, removed, added };
}
