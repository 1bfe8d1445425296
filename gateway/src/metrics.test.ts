/**
 * The gateway's /metrics registry: the event-loop lag gauges are still exported, sampled every
 * 100 ms (each sample is the interval between two wake-ups of the histogram's timer, so the
 * smallest is about the sampling interval; at prom-client's default 10 ms it is about 0.01 s).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { createMetrics } from "./metrics.ts";

function gauge(text: string, name: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  assert.ok(line, `${name} is missing from the metrics output`);
  return Number(line.slice(name.length + 1));
}

test("the event-loop lag gauges are exported and sampled every 100 ms", async () => {
  const { registry } = createMetrics();
  // Starts the histogram's sampling window afresh: the first collection resets it.
  await registry.metrics();
  await sleep(450);
  const text = await registry.metrics();
  const lag = "gantry_gateway_nodejs_eventloop_lag";
  for (const stat of ["seconds", "min_seconds", "max_seconds", "mean_seconds", "p50_seconds", "p99_seconds"])
    gauge(text, `${lag}_${stat}`);
  const min = gauge(text, `${lag}_min_seconds`);
  const mean = gauge(text, `${lag}_mean_seconds`);
  // A window with no sample reads NaN (mean) and ~9.2e9 s (min): require real samples.
  assert.ok(Number.isFinite(mean) && mean < 5, `mean ${mean}: no sample in 450 ms`);
  assert.ok(min >= 0.09 && min < 5, `smallest sampling interval ${min} s, expected about 0.1 s`);
});
