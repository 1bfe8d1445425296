/**
 * @module content/sweep
 * Deletes what has expired: blobs past their expiry (documents' bytes, kit/src/blob), then the
 * records of expired artifacts; and closes sends a crash interrupted. Each step is idempotent and
 * the blob sweep skips rows another replica is deleting, so every replica runs it on its own timer.
 * Runs in system scope.
 */
import type { Context } from "./context.ts";

export async function sweepArtifacts(ctx: Pick<Context, "db" | "blobs" | "now">, batch = 200): Promise<number> {
  let swept: number;
  do swept = await ctx.blobs.sweep(batch);
  while (swept === batch);
  const { count } = await ctx.db.artifact.deleteMany({ where: { expiresAt: { lte: new Date(ctx.now()) } } });
  return count;
}

/** What an interrupted send says, on the message and each recipient without an answer. */
export const INTERRUPTED =
  "interrupted: the process sending this message stopped before the mail server or SMS provider answered, so whether it was delivered is unknown; if it did not arrive, send it again with a new idempotencyKey";

/**
 * A message still `sending` long after any call could be waiting on it (its process crashed between
 * storing it and writing back the SMTP server's answer) is closed as `failed`, saying so, so that a
 * replay of its idempotencyKey answers it instead of 409 "still sending" for ever. Not re-sent: the
 * server may have accepted it, and a second copy is worse than an honest unknown.
 */
export async function closeInterruptedSends(ctx: Pick<Context, "db" | "now">, olderThanMs: number): Promise<number> {
  const cutoff = new Date(ctx.now() - olderThanMs);
  const stuck = await ctx.db.delivery.findMany({
    where: { status: "sending", createdAt: { lt: cutoff } },
    select: { id: true },
    take: 500,
  });
  if (stuck.length === 0) return 0;
  const ids = stuck.map((s) => s.id);
  const [, closed] = await ctx.db.$transaction([
    ctx.db.deliveryRecipient.updateMany({
      where: { deliveryId: { in: ids }, status: "pending" },
      data: { status: "failed", response: INTERRUPTED },
    }),
    ctx.db.delivery.updateMany({
      where: { id: { in: ids }, status: "sending" },
      data: { status: "failed", error: INTERRUPTED },
    }),
  ]);
  return closed.count;
}
