/**
 * What the connections bench scripts (bench-directory.ts, bench-tool-meaning.ts) measure their own
 * process with. Run them with --expose-gc, or RSS includes garbage not yet collected.
 */

const gc = (globalThis as { gc?: () => void }).gc;

/** This process's RSS in bytes, after two full collections (one may leave what a finaliser freed). */
export function rss(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().rss;
}

export const mib = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MiB`;

/** The `p` quantile (0..1) of `times`, nearest rank: p99 of 100 samples is the largest but one. */
export function percentile(times: number[], p: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}
