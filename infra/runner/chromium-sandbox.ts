/**
 * @module infra/runner/chromium-sandbox
 * Whether Chromium's sandbox can run for processes started from here, checked once: `npm start`
 * (for the web and content services) and `npm test` (for the tests that start a browser) set
 * `GANTRY_CHROMIUM_NO_SANDBOX=1` (kit/src/chromium.ts) only when it cannot, and log why.
 *
 * Chromium refuses its sandbox to root (crbug.com/638180); otherwise it needs unprivileged user
 * namespaces or its setuid helper, so the check starts the browser once with the sandbox and
 * reads a blank page.
 *
 * @example
 * const refusal = await chromiumSandboxRefusal();
 * if (refusal) env.GANTRY_CHROMIUM_NO_SANDBOX = "1"; // and log `refusal`
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "@gantry/kit/chromium.ts";

let checked: Promise<string | undefined> | undefined;

/** Why the sandbox cannot run here, or undefined when it can (or there is no Chromium to run). */
export function chromiumSandboxRefusal(executable = CHROMIUM_PATH): Promise<string | undefined> {
  checked ??= check(executable);
  return checked;
}

async function check(executable: string): Promise<string | undefined> {
  if (!fs.existsSync(executable)) return undefined;
  if (typeof process.getuid === "function" && process.getuid() === 0)
    return "the services run as root, and Chromium refuses its sandbox to root";
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "gantry-sandbox-check-"));
  try {
    const { code, output } = await new Promise<{ code: number; output: string }>((resolve) => {
      const child = spawn(executable, [...CHROMIUM_ARGS, `--user-data-dir=${profile}`, "--dump-dom", "about:blank"], {
        stdio: ["ignore", "pipe", "pipe"],
        timeout: 20_000,
      });
      let output = "";
      child.stdout.on("data", (d: Buffer) => (output += d.toString()));
      child.stderr.on("data", (d: Buffer) => (output += d.toString()));
      child.on("error", (err) => resolve({ code: -1, output: String(err) }));
      child.on("close", (c) => resolve({ code: c ?? -1, output }));
    });
    if (code === 0 && output.includes("<html")) return undefined;
    const why = output
      .split("\n")
      .find((l) => /sandbox|namespace/i.test(l))
      ?.trim();
    return `Chromium did not start with its sandbox (exit ${code}${why ? `: ${why}` : ""})`;
  } finally {
    fs.rmSync(profile, { recursive: true, force: true });
  }
}
