/**
 * @module content/sweep
 * Deletes what has expired: blobs past their expiry (documents' bytes, kit/src/blob), then the
 * records of expired artifacts. Each step is idempotent and the blob sweep skips rows another
 * replica is deleting, so every replica runs it on its own timer. Runs in system scope.
 */
import type { Context } from "./context.ts";

export async function sweepArtifacts(ctx: Pick<Context, "db" | "blobs" | "now">, batch = 200): Promise<number> {
  let swept: number;
  do swept = await ctx.blobs.sweep(batch);
  while (swept === batch);
  const { count } = await ctx.db.artifact.deleteMany({ where: { expiresAt: { lte: new Date(ctx.now()) } } });
  return count;
}
