/**
 * @module kit/chromium
 * How Gantry starts headless Chromium (Debian's `chromium`, driven by playwright-core; never a
 * browser downloaded by a test tool): the one set of launch options the web service, the content
 * service and the tests share. Without the background-networking flags Chromium keeps calling
 * Google's hosts, which a closed network refuses many times a second.
 *
 * The sandbox is on. Playwright turns it off unless told `chromiumSandbox: true`, so that is what
 * {@link chromiumLaunchOptions} says. It stays off only where it cannot run and the operator says
 * so with `GANTRY_CHROMIUM_NO_SANDBOX=1`: `npm start` and `npm test` set it after checking
 * (infra/runner/chromium-sandbox.ts: Chromium refuses its sandbox to root, and needs user
 * namespaces or its setuid helper otherwise), and say so in the log; the chart sets it for the
 * browser pods, whose containers are confined instead (SECURITY.md, "Who may reach what").
 */

/** Debian's package installs it here; services take another path from their config. */
export const CHROMIUM_PATH = "/usr/bin/chromium";

/** The variable that switches the sandbox off (value `1`); anything else leaves it on. */
export const CHROMIUM_NO_SANDBOX_ENV = "GANTRY_CHROMIUM_NO_SANDBOX";

export const CHROMIUM_ARGS: readonly string[] = [
  "--headless",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** True when `env` switches Chromium's sandbox off. */
export function chromiumSandboxOff(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[CHROMIUM_NO_SANDBOX_ENV] === "1";
}

/**
 * Options for playwright's `chromium.launch`: the shared flags plus `extra`, with the sandbox on
 * unless `env` switches it off. Read at each launch, so a process started with the setting (or a
 * test that sets it) needs nothing else.
 */
export function chromiumLaunchOptions(
  extra: readonly string[] = [],
  env: NodeJS.ProcessEnv = process.env,
): { args: string[]; chromiumSandbox: boolean } {
  const off = chromiumSandboxOff(env);
  return { args: [...CHROMIUM_ARGS, ...extra, ...(off ? ["--no-sandbox"] : [])], chromiumSandbox: !off };
}
