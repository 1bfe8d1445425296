/**
 * @module payments/context
 * What every handler receives as `ctx`, built once by `init` in service.ts: the Prisma client over
 * the kit's tenant-scoped pool, the parsed configuration, the credential resolver of the
 * connections service (null when PAYMENTS_TENANT_CREDENTIALS is off), NATS, the logger, the
 * recipient cache, the resend sweep.
 */
import { abilityOf, type CredentialResolverClient, type Logger, type Nats, type OutboxRelay } from "@gantry/kit";
import type pg from "pg";
import type { PaymentsConfig } from "./config.ts";
import type { PrismaClient } from "./db.ts";
import type { paymentClaims } from "./payment-writes.ts";
import type { payoutClaims } from "./payout-writes.ts";
import type { RecipientCache } from "./recipient-cache.ts";

export interface Context {
  db: PrismaClient;
  /** The same tenant-scoped pool, for the hot writes as prepared statements (src/payment-writes.ts, src/payout-writes.ts). */
  pool: pg.Pool;
  config: PaymentsConfig;
  resolver: CredentialResolverClient | null;
  nats: Nats;
  /** The outbox relay: status messages written in a change's transaction, published once it commits. */
  outbox: OutboxRelay;
  log: Logger;
  /**
   * Runs payout.send's accepting statement together with others that arrive while earlier ones run
   * (src/payout-writes.ts `payoutClaims`); null when PAYMENTS_ACCEPTING_STATEMENTS is 0 (each alone).
   */
  claimPayout: ReturnType<typeof payoutClaims> | null;
  /** The same for payment.initiate (src/payment-writes.ts `paymentClaims`). */
  claimPayment: ReturnType<typeof paymentClaims> | null;
  /** payout.send's recipients as this process last read them (src/recipient-cache.ts). */
  recipients: RecipientCache;
  /** The resend sweep (src/sweep.ts), stopped on shutdown. */
  sweep: { stop: () => Promise<void> };
}

/** `ability(id, run)`: declares the handler of one ability (one file per ability under abilities/). */
export const ability = abilityOf<Context>();
