/**
 * @module web/diff
 * A line-based unified diff (the `diff -u` format, three lines of context) of two captures' texts.
 * The common head and tail are skipped first; the middle is compared by longest common subsequence
 * when it is at most {@link MAX_CELLS} line pairs, and otherwise shown as replaced whole — still a
 * correct diff, only a less minimal one, and never an unbounded computation.
 */

const CONTEXT = 3;
const MAX_CELLS = 4_000_000;

type Op = { kind: " " | "-" | "+"; line: string };

function middleOps(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  if (n * m > MAX_CELLS)
    return [...a.map((line) => ({ kind: "-" as const, line })), ...b.map((line) => ({ kind: "+" as const, line }))];
  // lcs[i][j]: LCS length of a[i..] and b[j..], in one flat array.
  const w = m + 1;
  const lcs = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i * w + j] =
        a[i] === b[j] ? lcs[(i + 1) * w + j + 1] + 1 : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1]);
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      ops.push({ kind: " ", line: a[i] });
      i++;
      j++;
    } else if (lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) ops.push({ kind: "-", line: a[i++] });
    else ops.push({ kind: "+", line: b[j++] });
  }
  while (i < n) ops.push({ kind: "-", line: a[i++] });
  while (j < m) ops.push({ kind: "+", line: b[j++] });
  return ops;
}

/** `diff -u` of `before` and `after` (labels for the `---`/`+++` lines); null when they are equal. */
export function unifiedDiff(before: string, after: string, fromLabel: string, toLabel: string): string | null {
  if (before === after) return null;
  const a = before.split("\n");
  const b = after.split("\n");
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const ops: Op[] = [
    ...a.slice(0, head).map((line) => ({ kind: " " as const, line })),
    ...middleOps(a.slice(head, a.length - tail), b.slice(head, b.length - tail)),
    ...a.slice(a.length - tail).map((line) => ({ kind: " " as const, line })),
  ];
  // Group changes into hunks with CONTEXT lines around them.
  const out = [`--- ${fromLabel}`, `+++ ${toLabel}`];
  let k = 0;
  let aLine = 1;
  let bLine = 1;
  const positions = ops.map((op) => {
    const at = { a: aLine, b: bLine };
    if (op.kind !== "+") aLine++;
    if (op.kind !== "-") bLine++;
    return at;
  });
  while (k < ops.length) {
    if (ops[k].kind === " ") {
      k++;
      continue;
    }
    const start = Math.max(0, k - CONTEXT);
    let end = k;
    // Extend while the next change is within 2×CONTEXT unchanged lines.
    for (;;) {
      while (end < ops.length && ops[end].kind !== " ") end++;
      let gap = end;
      while (gap < ops.length && ops[gap].kind === " " && gap - end < 2 * CONTEXT) gap++;
      if (gap < ops.length && ops[gap].kind !== " ") end = gap;
      else break;
    }
    const stop = Math.min(ops.length, end + CONTEXT);
    const hunk = ops.slice(start, stop);
    const aCount = hunk.filter((o) => o.kind !== "+").length;
    const bCount = hunk.filter((o) => o.kind !== "-").length;
    const aStart = aCount ? positions[start].a : positions[start].a - 1;
    const bStart = bCount ? positions[start].b : positions[start].b - 1;
    out.push(`@@ -${aStart},${aCount} +${bStart},${bCount} @@`);
    for (const o of hunk) out.push(`${o.kind}${o.line}`);
    k = stop;
  }
  return `${out.join("\n")}\n`;
}
