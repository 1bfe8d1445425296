/**
 * @module infra/runner/picked-port
 * Starts a dependency (Postgres, NATS, Redis) on a port picked for it, and on another when it lost
 * that port. A picked port is only free when it is picked: before the process binds it (seconds
 * later for a Postgres that runs initdb first), another process on the machine can take it, a
 * listener of another stack or an outgoing connection's source port, and the dependency exits with
 * "address already in use". The area services take any free port themselves in that case
 * (bound-ports.ts); a dependency is given a newly picked port and started again instead.
 *
 * A process counts as started only once it printed its own readiness line (`readyLine`) and its
 * probe answers: a probe alone could reach whichever process holds the port, another stack's
 * included.
 *
 * @example
 * const { port } = await startOnPickedPort({
 *   name: "nats",
 *   pick: () => pickPort(4222),
 *   spec: (p) => ({ name: "nats", command: bin, args: ["-a", "127.0.0.1", "-p", String(p)] }),
 *   readyLine: "Server is ready",
 *   add, sink, wait: { timeoutMs: 60_000, failAfterExits: 1 },
 * });
 */
import type { LogSink, ManagedProcess, ProcessSpec, WaitHealthyOptions } from "./supervisor.ts";

/** How each dependency says it could not bind its port (Postgres and Redis: "Address", NATS: "address"). */
const PORT_TAKEN = /address already in use/i;
/** Ports tried before the start fails: a second loss in a row is rare, a third means something else is wrong. */
const ATTEMPTS = 3;

export interface PickedPortStart {
  /** The process's name (its log lines are told apart by it). */
  name: string;
  /** The next candidate port. */
  pick: () => Promise<number>;
  /** The process to run on `port`. */
  spec: (port: number) => ProcessSpec | Promise<ProcessSpec>;
  /** Starts a process under supervision (the stack's `add`, which also stops it with the stack). */
  add: (spec: ProcessSpec) => ManagedProcess;
  /** Text of the line the process prints once it listens on its port. */
  readyLine: string;
  sink: LogSink;
  wait: WaitHealthyOptions;
}

export async function startOnPickedPort(start: PickedPortStart): Promise<{ port: number; proc: ManagedProcess }> {
  for (let attempt = 1; ; attempt++) {
    const port = await start.pick();
    const spec = await start.spec(port);
    let readyPid: number | undefined;
    let lost = false;
    const probe = spec.health;
    const proc = start.add({
      ...spec,
      health: async () => readyPid !== undefined && readyPid === proc.pid && (probe ? probe() : true),
    });
    // Kept for the process's life: a restarted process (a crash, stopService/startService) is
    // healthy again only once it says so.
    const unsubscribe = start.sink.subscribe((name, line) => {
      if (name !== start.name) return;
      if (line.includes(start.readyLine)) readyPid = proc.pid;
      if (PORT_TAKEN.test(line)) lost = true;
    });
    try {
      await proc.waitHealthy(start.wait);
      return { port, proc };
    } catch (err) {
      // The exit can be seen before the process's last lines are read from its pipe.
      if (!lost) await new Promise((r) => setTimeout(r, 100));
      if (!lost || attempt >= ATTEMPTS) throw err;
      unsubscribe();
      await proc.stop();
      start.sink.write("runner", `${start.name}: port ${port} was taken before it could bind it; trying another`);
    }
  }
}
