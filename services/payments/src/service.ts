/**
 * @module payments/service
 * The payments service: payments in (payment links / checkout) and payouts out (verified
 * recipients, single payouts and batches) over provider adapters — the built-in sandbox by default,
 * provider_a speaking Stripe's API, provider_b speaking Paystack's — with a double-entry ledger in
 * integer minor units, forward-only state machines converged by polling and signed webhooks, and
 * status events on NATS (stream PAYMENTS).
 *
 * `init` runs in system scope; ability calls run in the caller's tenant scope; webhook deliveries
 * (no tenant) run in system scope and find the record by our id in the event.
 */
import { credentialResolver, defineService, ingressService, prismaClient, startOutboxRelay } from "@gantry/kit";
import { PAYMENTS_ENV } from "./config.ts";
import type { Context } from "./context.ts";
import { PrismaClient } from "./db.ts";
import { paymentClaims } from "./payment-writes.ts";
import { payoutClaims } from "./payout-writes.ts";
import { RecipientCache } from "./recipient-cache.ts";
import { ensurePaymentsStream } from "./events.ts";
import { isLive } from "./providers/index.ts";
import { startResendSweep } from "./sweep.ts";
import { webhookIngress } from "./webhooks.ts";

export default defineService({
  name: "payments",
  env: PAYMENTS_ENV,
  init: async (deps): Promise<Context> => {
    const { config, log, nats, pool } = deps;
    if (!pool) throw new Error("payments started without a database (DATABASE_URL)");
    await ensurePaymentsStream(nats);
    const ctx: Context = {
      db: prismaClient(deps, PrismaClient),
      pool,
      config,
      resolver: config.PAYMENTS_TENANT_CREDENTIALS
        ? credentialResolver(deps.addrs.connections, deps.callKeys.signer("connections"))
        : null,
      nats,
      outbox: startOutboxRelay({ pool, schema: "payments", nats, log }),
      log,
      recipients: new RecipientCache(),
      claimPayout: config.PAYMENTS_ACCEPTING_STATEMENTS > 0 ? payoutClaims(config.PAYMENTS_ACCEPTING_STATEMENTS) : null,
      claimPayment:
        config.PAYMENTS_ACCEPTING_STATEMENTS > 0 ? paymentClaims(config.PAYMENTS_ACCEPTING_STATEMENTS) : null,
      sweep: { stop: async () => {} },
    };
    log.info(
      {
        provider_a: isLive(ctx, "provider_a") ? "live" : "sandbox",
        provider_b: isLive(ctx, "provider_b") ? "live" : "sandbox",
        payouts: config.PAYMENTS_PAYOUT_PROVIDER,
        tenantCredentials: config.PAYMENTS_TENANT_CREDENTIALS,
      },
      "payments configured",
    );
    // Started last, so a failure above leaves nothing running.
    ctx.sweep = startResendSweep(ctx, config.PAYMENTS_RESEND_SWEEP_SECONDS * 1000);
    return ctx;
  },
  // Provider webhooks, through the gateway's public /v1/webhooks/payments/… (kit/src/ingress.ts).
  grpcServices: (ctx) => [ingressService(ctx.log, (req) => webhookIngress(ctx, req))],
  close: async (ctx) => {
    await ctx.sweep.stop();
    await ctx.outbox.stop();
    ctx.resolver?.close();
    await ctx.db.$disconnect();
  },
});
