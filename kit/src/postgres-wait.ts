import type pg from "pg";
import type { Logger } from "./logger.ts";

/**
 * Waits until Postgres answers a query, retrying what a starting database or a busy cluster DNS
 * answers meanwhile (connection refused, EAI_AGAIN, a login not made yet) until `seconds` have
 * passed; then throws the last error. A process that starts beside its database (a Kubernetes
 * rollout, compose) waits for it instead of crashing and being restarted with a growing back-off.
 */
export async function waitForPostgres(pool: pg.Pool, seconds: number, log: Logger): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  for (let attempt = 1; ; attempt++) {
    try {
      await pool.query("SELECT 1");
      return;
    } catch (err) {
      const e = err as Error & { code?: string };
      if (Date.now() >= deadline)
        throw new Error(`Postgres did not accept connections within ${seconds} s: ${e.message}`, { cause: err });
      if (attempt === 1 || attempt % 10 === 0) log.info({ err: e.message, code: e.code }, "waiting for Postgres");
      await new Promise((r) => setTimeout(r, Math.min(2_000, 250 * attempt)));
    }
  }
}
