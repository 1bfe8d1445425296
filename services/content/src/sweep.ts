/**
 * @module content/sweep
 * Deletes expired artifacts: their bytes in the store, then their rows. Runs in system scope.
 */
import type { Context } from "./context.ts";

export async function sweepArtifacts(ctx: Context, batch = 200): Promise<number> {
  const expired = await ctx.db.artifact.findMany({
    where: { expiresAt: { lt: new Date(ctx.now()) } },
    select: { id: true, storageKey: true },
    take: batch,
  });
  for (const a of expired) await ctx.artifacts.objects.delete(a.storageKey);
  if (expired.length) await ctx.db.artifact.deleteMany({ where: { id: { in: expired.map((a) => a.id) } } });
  return expired.length;
}
