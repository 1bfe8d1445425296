/**
 * @module kit/chromium
 * How Gantry starts headless Chromium (Debian's `chromium`, driven by playwright-core; never a
 * browser downloaded by a test tool): the one list of flags the web service, the content service and
 * the tests share. Without the background-networking flags Chromium keeps calling Google's hosts,
 * which a closed network refuses many times a second; `--no-sandbox` because the services run as a
 * non-root user without user namespaces in containers.
 */

/** Debian's package installs it here; services take another path from their config. */
export const CHROMIUM_PATH = "/usr/bin/chromium";

export const CHROMIUM_ARGS: readonly string[] = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
