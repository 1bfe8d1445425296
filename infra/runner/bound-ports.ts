/**
 * @module infra/runner/bound-ports
 * A service tells the runner the port it actually bound, and only then is that address handed on.
 * Picking a free port and starting a process on it later is a race: two `npm start` begun at once
 * both found 50051 free, one keys service crash-looped on EADDRINUSE, and its stack's gateway,
 * told 50051, came up healthy talking to the other stack's services. So each service replica is
 * started with a candidate `GRPC_PORT` and `GANTRY_LISTEN_FILE`; the kit writes the port it bound
 * there (kit/src/service.ts). A replica is ready once that file names a port and the gRPC health
 * check there answers SERVING: the file is the stack's own, so the answer is from its own process,
 * never from another stack's on the same port. A replica that reports EADDRINUSE before binding is
 * restarted on any free port (`GRPC_PORT=0`); once bound, its port is kept across restarts.
 *
 * @example
 * const bound = new BoundPort("keys", path.join(runDir, "keys.port"), env); // env.GRPC_PORT = candidate
 * add({ ..., env, health: () => bound.healthy() });
 * await waitAll(...); bound.port; // the port keys listens on
 */
import fs from "node:fs";
import { HealthClient } from "@gantry/kit/health.ts";

export class BoundPort {
  readonly name: string;
  readonly file: string;
  /** The environment the supervisor spawns the replica with; GRPC_PORT is adjusted in place. */
  readonly env: NodeJS.ProcessEnv;
  private probe: { port: number; client: HealthClient } | undefined;

  constructor(name: string, file: string, env: NodeJS.ProcessEnv) {
    this.name = name;
    this.file = file;
    this.env = env;
    env.GANTRY_LISTEN_FILE = file;
    this.forget();
  }

  /** The port the replica reported binding, if it has since it was last started. */
  get port(): number | undefined {
    let text: string;
    try {
      text = fs.readFileSync(this.file, "utf8").trim();
    } catch {
      return undefined;
    }
    const port = Number(text);
    return Number.isInteger(port) && port > 0 ? port : undefined;
  }

  /** Before a (re)start: the next report is awaited afresh. */
  forget(): void {
    fs.rmSync(this.file, { force: true });
  }

  /** A line the replica printed: a port taken before it could bind it makes the next start take any free one. */
  onLine(line: string): void {
    if (this.port === undefined && line.includes("EADDRINUSE")) this.env.GRPC_PORT = "0";
  }

  /** Ready: it reported its port and answers SERVING there; the port is kept for its restarts. */
  async healthy(): Promise<boolean> {
    const port = this.port;
    if (port === undefined) return false;
    this.env.GRPC_PORT = String(port);
    if (this.probe?.port !== port) {
      this.probe?.client.close();
      this.probe = { port, client: new HealthClient(`127.0.0.1:${port}`) };
    }
    return (await this.probe.client.check()) === "SERVING";
  }

  close(): void {
    this.probe?.client.close();
    this.probe = undefined;
  }
}
