import { spawn } from "node:child_process";

/** Runs a command-line script of the tree with only `env` (and PATH): its exit code and all it printed. */
export function runCli(
  script: string,
  args: string[],
  env: Record<string, string | undefined>,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...args], {
      env: { PATH: process.env.PATH, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d));
    child.stderr.on("data", (d: Buffer) => (out += d));
    child.on("close", (code) => resolve({ code, out }));
  });
}
