/**
 * @module trust/service
 * The trust service: runs with single-use permits bound to an ability and the hash of its exact
 * input (trust.preflight, trust.status), the PermitGate RPCs the gateway calls for every call that
 * carries `context.runId` (consume a permit before dispatch, record the signed receipt after), one
 * append-only Merkle log of receipts per tenant with signed checkpoints, and labelled claims
 * (trust.publish).
 *
 * `init` loads the signing keys before anything starts, so a bad key stops the process.
 */
import { createClock, defineService, prismaClient } from "@gantry/kit";
import { loadSigningKeys, TRUST_ENV } from "./config.ts";
import type { Context } from "./context.ts";
import { PrismaClient } from "./db.ts";
import { permitGateService } from "./gate.ts";
import { MemoryClient } from "./memory.ts";
import { LogAppender } from "./log-append.ts";

export default defineService({
  name: "trust",
  env: TRUST_ENV,
  init: (deps): Context => {
    const { config, log } = deps;
    const keys = loadSigningKeys(config);
    if (keys.development) {
      log.warn(
        `TRUST_SIGNING_KEY is unset: receipts and checkpoints are signed with the PUBLIC DEVELOPMENT KEY (NODE_ENV=${config.NODE_ENV}). Anyone can forge them; set TRUST_SIGNING_KEY before relying on a receipt.`,
      );
    }
    log.info({ signingKey: keys.current.kid, verifiableKeys: [...keys.publicKeys.keys()] }, "trust configured");
    const now = createClock({ NODE_ENV: config.NODE_ENV, GANTRY_TEST_CLOCK_FILE: config.GANTRY_TEST_CLOCK_FILE });
    const memory = new MemoryClient(deps.addrs.memory, deps.callKeys.signer("memory"));
    if (!deps.pool) throw new Error("trust service started without a database (DATABASE_URL)");
    const pool = deps.pool;
    return {
      db: prismaClient(deps, PrismaClient),
      pool,
      config,
      keys,
      memory,
      appender: new LogAppender(pool),
      log,
      now,
    };
  },
  grpcServices: (ctx) => [permitGateService(ctx)],
  close: async (ctx) => {
    ctx.memory.close();
    await ctx.db.$disconnect();
  },
});
