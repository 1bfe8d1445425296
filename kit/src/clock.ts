/**
 * @module kit/clock
 * The wall clock of processes whose behaviour depends on time (key expiry, rotation overlap), with a
 * test-only offset so tests can move time forward without sleeping.
 *
 * The offset is read from the file named by `GANTRY_TEST_CLOCK_FILE` (an integer number of
 * milliseconds; a missing or empty file means 0), re-read on every call so a test can advance every
 * process at once by rewriting one file. It is honoured **only when `NODE_ENV=test`**: a process that
 * finds the variable set without `NODE_ENV=test` refuses to start instead of silently ignoring it, so
 * a production deployment can neither be tricked into a shifted clock nor run with a forgotten one.
 *
 * @example
 * const now = createClock();          // Date.now unless NODE_ENV=test and GANTRY_TEST_CLOCK_FILE
 * const expired = row.expiresAt.getTime() <= now();
 */
import { readFileSync } from "node:fs";

export const TEST_CLOCK_ENV = "GANTRY_TEST_CLOCK_FILE";

export type Clock = () => number;

export function createClock(env: NodeJS.ProcessEnv = process.env): Clock {
  const file = env[TEST_CLOCK_ENV];
  if (!file) return Date.now;
  if (env.NODE_ENV !== "test") {
    throw new Error(
      `${TEST_CLOCK_ENV} is set but NODE_ENV is not "test": the test clock is never honoured outside tests; unset ${TEST_CLOCK_ENV}`,
    );
  }
  return () => Date.now() + readOffset(file);
}

function readOffset(file: string): number {
  let text: string;
  try {
    text = readFileSync(file, "utf8").trim();
  } catch {
    return 0;
  }
  if (text === "") return 0;
  const n = Number(text);
  if (!Number.isSafeInteger(n))
    throw new Error(`${TEST_CLOCK_ENV}: ${file} must hold an integer number of milliseconds`);
  return n;
}
