/**
 * @module connections/sessions
 * Consent sessions (`oauth_sessions`) ending: `closeSessions` closes a connection's open sessions
 * (a completed consent decides, a revocation ends them), and `sweepAbandoned` (run by the refresh
 * sweep, system scope) cleans up consents nobody finished:
 *
 * - a `pending` connection whose every session has expired (the user never came back) becomes
 *   `revoked` with `status_reason` "consent not completed", with its trail event and message, so
 *   abandoned integration-app accounts do not pile up as pending forever;
 * - session rows expired for a day are deleted (they hold a sealed PKCE verifier that can no longer
 *   be used; the day keeps `complete`'s "expired" answer specific for late callers).
 */
import type { Context } from "./context.ts";
import type { Connection, Prisma } from "./db.ts";
import { enqueue, recordEvent } from "./events.ts";

/** Session rows are kept this long after expiry. */
export const SESSION_RETENTION_MS = 24 * 3600 * 1000;
const ABANDONED = "consent not completed: every consent session expired";

/** Closes the connection's open consent sessions (inside the caller's transaction). */
export function closeSessions(
  tx: Pick<Prisma.TransactionClient, "oauthSession">,
  connection: Pick<Connection, "id" | "tenant">,
  at: Date,
): Promise<Prisma.BatchPayload> {
  return tx.oauthSession.updateMany({
    where: { connectionId: connection.id, tenant: connection.tenant, consumedAt: null },
    data: { consumedAt: at },
  });
}

/** One round: abandoned pending connections → revoked; long-expired session rows deleted. */
export async function sweepAbandoned(ctx: Context): Promise<{ revoked: number; deleted: number }> {
  const nowMs = ctx.now();
  const now = new Date(nowMs);
  const candidates = await ctx.db.connection.findMany({
    where: {
      status: "pending",
      createdAt: { lte: new Date(nowMs - ctx.config.CONNECTIONS_SESSION_TTL_SECONDS * 1000) },
      sessions: { none: { consumedAt: null, expiresAt: { gt: now } } },
    },
    take: 200,
  });
  let revoked = 0;
  for (const row of candidates) {
    // Conditional on status and version: a consent completed meanwhile wins.
    const done = await ctx.db.$transaction(async (tx) => {
      const claimed = await tx.connection.updateMany({
        where: { id: row.id, status: "pending", version: row.version },
        data: { status: "revoked", statusReason: ABANDONED, revokedAt: now, updatedAt: now, version: { increment: 1 } },
      });
      if (claimed.count !== 1) return null;
      await closeSessions(tx, row, now);
      await recordEvent(tx, { connection: row, type: "revoked", at: now, detail: { reason: ABANDONED } });
      const closed = await tx.connection.findFirstOrThrow({ where: { id: row.id } });
      await enqueue(tx, "revoked", closed, { detail: { reason: ABANDONED }, at: now });
      return closed;
    });
    if (!done) continue;
    revoked++;
    await ctx.outbox.flush();
  }
  const deleted = await ctx.db.oauthSession.deleteMany({
    where: { expiresAt: { lt: new Date(nowMs - SESSION_RETENTION_MS) } },
  });
  if (revoked || deleted.count)
    ctx.log.info({ revoked, deletedSessions: deleted.count }, "abandoned consents cleaned up");
  return { revoked, deleted: deleted.count };
}
