/**
 * @module payments/sweep
 * The resend and recovery sweep. A payout accepted but not known to have reached its provider
 * (still `pending`, e.g. the provider was unreachable, or the process stopped between the commit and
 * the send) is looked up by its reference and sent again only if the provider does not know it; one
 * the provider took but that has not settled (`processing` with no change for a sweep interval: its
 * webhook lost, or the process that would have polled gone) is asked for its status — both the same
 * path as payout.status (src/payouts.ts `refreshPayout`). Every replica may run it: the provider
 * keeps our reference / idempotency key unique, so a payout is never sent twice, and a status moves
 * only forward under the row lock.
 */
import { asSystem, withTenant } from "@gantry/kit";
import type { Context } from "./context.ts";
import { refreshPayout } from "./payouts.ts";

const BATCH = 50;

export async function resendPending(ctx: Context, olderThanMs: number): Promise<number> {
  const stale = await asSystem(() =>
    ctx.db.payout.findMany({
      where: {
        OR: [
          { status: "pending", createdAt: { lt: new Date(Date.now() - olderThanMs) } },
          { status: "processing", updatedAt: { lt: new Date(Date.now() - olderThanMs) } },
        ],
      },
      orderBy: { updatedAt: "asc" },
      take: BATCH,
    }),
  );
  for (const p of stale) {
    try {
      await withTenant(p.tenant, () => refreshPayout(ctx, { tenant: p.tenant, requestId: `sweep_${p.id}` }, p));
    } catch (err) {
      ctx.log.warn(
        { payout: p.id, status: p.status, err: String(err) },
        "refreshing a payout failed; next sweep retries",
      );
    }
  }
  return stale.length;
}

export function startResendSweep(ctx: Context, everyMs: number): { stop: () => Promise<void> } {
  if (everyMs <= 0) return { stop: async () => {} };
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = running
      .then(() => resendPending(ctx, everyMs))
      .catch((err) => ctx.log.warn({ err: String(err) }, "resend sweep failed"));
  }, everyMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
