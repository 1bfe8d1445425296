/**
 * @module trust/checkpoints
 * The checkpoints of a tenant's receipt log the service has signed, remembered (`checkpoints`: size,
 * root, signed note, time) so that the log can be held to growing only, as transparency logs are
 * (RFC 9162 §2.1.4, c2sp.org/tlog-checkpoint):
 *
 * - a size whose checkpoint is stored is answered with it, unchanged;
 * - before signing a checkpoint for a new size, the service reads every leaf of the log from the
 *   database again (not its cache) and checks that the first `size` of them still have the root of
 *   the last checkpoint it signed, whose signature it checks too. A log rewritten underneath it (a
 *   leaf changed, removed or reordered in the database) is refused: nothing is signed, the error is
 *   logged and the call fails with a plain 500;
 * - trust.status serves consistency proofs between sizes (`logFromSize`), so a client holding an older checkpoint
 *   checks offline that the newer one extends it (src/verify.ts, scripts/verify.ts).
 *
 * What this does not catch by itself: an attacker who rewrites leaves and also deletes the stored
 * checkpoints makes the service sign the rewritten log; every client holding an older checkpoint
 * then sees its consistency proof fail.
 */
import { GantryError } from "@gantry/kit";
import type { Context } from "./context.ts";
import type { MerkleLevels } from "./merkle.ts";
import { openCheckpoint, signCheckpoint } from "./signing.ts";

/** The log's origin line in checkpoints: one log per tenant. */
export function logOrigin(tenant: string): string {
  return `gantry.trust/receipts/${tenant}`;
}

export interface SignedTree {
  tree: MerkleLevels;
  /** The signed checkpoint (C2SP note) for the tree's size and root. */
  note: string;
}

/**
 * Why the stored log no longer extends the last checkpoint signed, or null when it does: the stored
 * checkpoint must carry a valid signature of ours for its row's size and root, and the log's first
 * `size` leaves must have that root.
 */
function rewriteOf(
  ctx: Pick<Context, "keys">,
  tenant: string,
  tree: MerkleLevels,
  last: { size: number; rootHash: string; note: string },
): string | null {
  const opened = openCheckpoint(last.note, ctx.keys.publicKeys);
  if (!opened.ok) return `the stored checkpoint of size ${last.size} does not verify: ${opened.reason}`;
  if (opened.origin !== logOrigin(tenant) || opened.size !== last.size || opened.root.toString("hex") !== last.rootHash)
    return `the stored checkpoint of size ${last.size} differs from its signed note`;
  if (tree.size < last.size) return `the log holds ${tree.size} leaves, fewer than the ${last.size} already signed`;
  if (!tree.rootAt(last.size).equals(opened.root))
    return `the first ${last.size} leaves no longer have the root of the checkpoint signed for that size`;
  return null;
}

/**
 * The tenant's log as it stands with its signed checkpoint: the stored one when the size was signed
 * before, else a new one signed (and stored) once the stored log is checked against the last
 * checkpoint. Throws a 500 (logged with the reason) when the log was rewritten.
 */
export async function currentCheckpoint(ctx: Context, tenant: string): Promise<SignedTree> {
  // The last checkpoint first, then the log: a checkpoint another replica signs meanwhile is for a
  // prefix of what the log read finds (or it is a later size this read does not need).
  const last = await ctx.db.checkpoint.findFirst({ where: { tenant }, orderBy: { size: "desc" } });
  const cached = await ctx.logs.tree(ctx, tenant);
  if (last && last.size === cached.size && cached.root().toString("hex") === last.rootHash)
    return { tree: cached, note: last.note };
  const tree = await ctx.logs.tree(ctx, tenant, true);
  if (last) {
    const problem = rewriteOf(ctx, tenant, tree, last);
    if (problem) {
      ctx.log.error(
        { tenant, signedSize: last.size, signedRoot: last.rootHash, logSize: tree.size },
        `trust log of ${tenant} was rewritten, refusing to sign a checkpoint: ${problem}`,
      );
      throw new GantryError("internal", "internal error");
    }
    if (last.size === tree.size) return { tree, note: last.note };
  }
  const root = tree.root();
  const note = signCheckpoint(ctx.keys.current, logOrigin(tenant), tree.size, root);
  // Another replica may have signed the same size: the same note (Ed25519 is deterministic) or, after
  // a rotation, one by the other key; either stands.
  await ctx.db.checkpoint.createMany({
    data: [{ tenant, size: tree.size, rootHash: root.toString("hex"), note, signedAt: new Date(ctx.now()) }],
    skipDuplicates: true,
  });
  return { tree, note };
}

/**
 * The consistency proof from the tenant's log at `fromSize` to the tree of `signed` (RFC 9162
 * §2.1.4.1), as hex hashes; 400 when `fromSize` is beyond it.
 */
export function consistencyFrom(signed: SignedTree, fromSize: number, path: string): string[] {
  if (fromSize > signed.tree.size)
    throw new GantryError("invalid_request", `fromSize ${fromSize} is beyond the log's ${signed.tree.size} leaves.`, {
      reason: "Send the size of a checkpoint you kept (its second line); the log only grows.",
      details: [{ path, message: `at most ${signed.tree.size}`, code: "maximum" }],
    });
  return signed.tree.consistency(fromSize).map((h) => h.toString("hex"));
}
