/**
 * @module bench/lib/machine
 * The machine a bench run measured on, as its reports state it: results from a shared 2-core box
 * and a quiet 16-core one are not comparable, so every report carries it.
 */
import os from "node:os";

export interface Machine {
  nproc: number;
  cpu: string;
  memGiB: number;
  node: string;
  /** Load average when the run started: the rest of the machine's share. */
  loadavg: number[];
}

export function machine(loadavg: number[] = os.loadavg()): Machine {
  return {
    nproc: os.availableParallelism(),
    cpu: os.cpus()[0]?.model.trim() ?? "unknown",
    memGiB: os.totalmem() / 1024 ** 3,
    node: process.version,
    loadavg,
  };
}
