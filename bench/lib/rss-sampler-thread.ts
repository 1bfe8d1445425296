/**
 * @module bench/lib/rss-sampler-thread
 * The thread behind `RssSampler` (proc-stats.ts): samples the summed RSS of each set of process
 * trees on an interval, keeps the peaks, and answers "stop" with them after one last sample.
 * Posts one message when its first sample is taken, so the caller knows it is running.
 */
import { parentPort, workerData } from "node:worker_threads";
import { childrenTable, processTrees } from "../../infra/testing/process-tree.ts";
import { rssBytes } from "./proc-stats.ts";

const { sets, intervalMs } = workerData as { sets: number[][]; intervalMs: number };
const peaks = sets.map(() => 0);

function sample(): void {
  const children = childrenTable();
  sets.forEach((roots, i) => {
    let sum = 0;
    for (const pid of processTrees(roots, children)) sum += rssBytes(pid);
    if (sum > peaks[i]) peaks[i] = sum;
  });
}

sample();
const timer = setInterval(sample, intervalMs);
parentPort!.postMessage("started");
parentPort!.on("message", () => {
  clearInterval(timer);
  sample();
  parentPort!.postMessage({ peaks });
});
