/**
 * @module infra/scripts/run-child
 * Runs a command to completion for the repository's scripts (`npm test`, `npm run fuzz`): Ctrl-C and
 * SIGTERM are passed on to the child, and the answer is its exit code (1 when it could not start or
 * died of a signal). With `logFile`, its output is also copied there.
 *
 * @example
 * const code = await runChild(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: ROOT });
 */
import { spawn } from "node:child_process";
import fs from "node:fs";

export interface RunChildOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Also write stdout and stderr to this file (the child's output still reaches the terminal). */
  logFile?: string;
}

export function runChild(cmd: string, argv: string[], options: RunChildOptions): Promise<number> {
  return new Promise((resolve) => {
    const log = options.logFile ? fs.createWriteStream(options.logFile) : undefined;
    const child = spawn(cmd, argv, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: log ? ["ignore", "pipe", "pipe"] : "inherit",
    });
    if (log) {
      for (const stream of [child.stdout, child.stderr]) {
        stream?.on("data", (chunk: Buffer) => {
          process.stdout.write(chunk);
          log.write(chunk);
        });
      }
    }
    const forward = (sig: NodeJS.Signals) => child.kill(sig);
    process.on("SIGINT", forward);
    process.on("SIGTERM", forward);
    child.on("error", (err) => {
      console.error(`could not run ${cmd}: ${err.message}`);
      resolve(1);
    });
    child.on("close", (code, signal) => {
      process.off("SIGINT", forward);
      process.off("SIGTERM", forward);
      log?.end();
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}
