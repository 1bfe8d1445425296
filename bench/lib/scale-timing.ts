/**
 * @module bench/lib/scale-timing
 * How the parts of `npm run bench -- --scale` time one operation at one data size: a warm-up the
 * curve does not count (plans prepared, caches and the JIT warm, so the first size is not charged
 * for them), then `samples` calls one after another, each timed alone.
 */
import { stats } from "./memory.ts";
import type { ScalePoint } from "./scale-curve.ts";

/** Calls `op(i)` `warmup` times untimed, then `samples` times timed; the point in milliseconds or microseconds. */
export async function timeSamples(
  rows: number,
  unit: "ms" | "µs",
  samples: number,
  warmup: number,
  op: (i: number) => Promise<unknown>,
  extra?: Record<string, number>,
): Promise<ScalePoint> {
  for (let i = 0; i < warmup; i++) await op(i);
  const ms: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t = performance.now();
    await op(warmup + i);
    ms.push(performance.now() - t);
  }
  const s = stats(ms);
  const k = unit === "µs" ? 1000 : 1;
  return { rows, p50: s.p50 * k, p99: s.p99 * k, samples: s.n, ...(extra ? { extra } : {}) };
}
