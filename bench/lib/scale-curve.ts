/**
 * @module bench/lib/scale-curve
 * What every part of `npm run bench -- --scale` (issue 30) hands to the report: one cost measured at
 * growing numbers of one tenant's rows (10³ … 10⁶, 10⁷ for audit records), so the docs can show
 * whether it stays flat. Each part seeds its own data, measures, and returns curves; the report
 * renders them all into one table and one SVG chart in docs/benchmarks.md.
 */

/** One measurement of a curve at one data size. */
export interface ScalePoint {
  /** Rows of the tenant when measured (receipts, memories, contacts, keys, audit records). */
  rows: number;
  /** Median of the timed operations, in the curve's unit. */
  p50: number;
  /** 99th percentile of the timed operations, in the curve's unit. */
  p99: number;
  /** Operations timed at this size. */
  samples: number;
  /** Other figures worth a column (e.g. `recallAt5`, `rowsRead`, `tableMiB`), by name. */
  extra?: Record<string, number>;
}

export interface ScaleCurve {
  /** Stable id, e.g. `receipt.append`, `memory.search:postgres`. */
  id: string;
  /** What a reader sees in the table and chart legend. */
  label: string;
  /** Unit of p50/p99. */
  unit: "µs" | "ms";
  /** How it was measured: through the gateway or in process, what is seeded, what each sample does. */
  note: string;
  /** The complexity the design promises (`O(log n)`, `O(1)`, `O(n)` …), stated beside the curve. */
  expected: string;
  points: ScalePoint[];
  /** Sizes asked for but not measured, and why (e.g. a seed that would not fit in memory). */
  skipped?: { rows: number; why: string }[];
}

export interface ScaleOptions {
  /** Row counts to measure at, ascending (the default run: 1e3, 1e4, 1e5, 1e6). */
  sizes: number[];
  /** Progress lines (seeding can take minutes at 10⁶). */
  log: (line: string) => void;
}

/** A part of the scale run: seeds what it needs at each size and returns its curves. */
export type ScalePart = (opts: ScaleOptions) => Promise<ScaleCurve[]>;
