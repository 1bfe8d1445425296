/**
 * @module trust/checkpoints
 * The checkpoints of a tenant's receipt log the service has signed, remembered (`checkpoints`: size,
 * root, signed note, time) so that the log can be held to growing only, as transparency logs are
 * (RFC 9162 §2.1.4, c2sp.org/tlog-checkpoint):
 *
 * - a size whose checkpoint is stored is answered with it, unchanged;
 * - before signing a checkpoint for a new size, the service computes the root of the last checkpoint
 *   it signed from the stored subtree hashes (log-nodes.ts: O(log n) of them, the right edge of the
 *   tree at that size) and checks it against that checkpoint, whose signature it checks too. A log
 *   whose stored hashes were rewritten underneath it up to that edge is refused: nothing is signed,
 *   the error is logged and the call fails with a plain 500. A rewrite below the edge alone (a leaf
 *   without its ancestors) leaves the roots as they were and breaks the inclusion proofs of the
 *   leaves around it, which every verifier checks;
 * - trust.status serves consistency proofs between sizes (`logFromSize`), so a client holding an older checkpoint
 *   checks offline that the newer one extends it (src/verify.ts, scripts/verify.ts).
 *
 * What this does not catch by itself: an attacker who rewrites leaves and also deletes the stored
 * checkpoints makes the service sign the rewritten log; every client holding an older checkpoint
 * then sees its consistency proof fail.
 */
import { GantryError, preparedQuery } from "@gantry/kit";
import type { Context } from "./context.ts";
import { StoredTree } from "./log-nodes.ts";
import { openCheckpoint, signCheckpoint } from "./signing.ts";

/** The log's origin line in checkpoints: one log per tenant. */
export function logOrigin(tenant: string): string {
  return `gantry.trust/receipts/${tenant}`;
}

export interface SignedTree {
  tree: StoredTree;
  /** The signed checkpoint (C2SP note) for the tree's size and root. */
  note: string;
  /** The log's public id (its read-only URLs, tiles.ts); null until its first receipt. */
  logId: string | null;
}

/**
 * Why the stored log no longer extends the last checkpoint signed, or null when it does: the stored
 * checkpoint must carry a valid signature of ours for its row's size and root, and the log's first
 * `size` leaves must have that root.
 */
function rewriteOf(
  ctx: Pick<Context, "keys">,
  tenant: string,
  tree: StoredTree,
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

const logHead = preparedQuery<
  { size: number; logId: string | null; lastSize: number | null; lastRoot: string | null; lastNote: string | null },
  [tenant: string]
>(
  "trust.log_head",
  `SELECT coalesce(l.size, 0) AS size, l.log_id AS "logId", c.size AS "lastSize", c.root_hash AS "lastRoot", c.note AS "lastNote"
     FROM (SELECT $1::text AS tenant) t
     LEFT JOIN trust.logs l ON l.tenant = t.tenant
     LEFT JOIN LATERAL (SELECT size, root_hash, note FROM trust.checkpoints
                         WHERE tenant = t.tenant ORDER BY size DESC LIMIT 1) c ON true`,
);

/**
 * The tenant's log as it stands with its signed checkpoint: the stored one when the size was signed
 * before, else a new one signed (and stored) once the stored log is checked against the last
 * checkpoint. Throws a 500 (logged with the reason) when the log was rewritten.
 */
export async function currentCheckpoint(ctx: Context, tenant: string): Promise<SignedTree> {
  // The log's size and the last checkpoint in one snapshot: a checkpoint another replica signs
  // meanwhile is for a size this read does not need.
  const [head] = await logHead(ctx.pool, tenant);
  const { size, logId, lastSize, lastRoot, lastNote } = head!;
  const last = lastSize === null ? null : { size: lastSize, rootHash: lastRoot!, note: lastNote! };
  const tree = await new StoredTree(ctx.pool, tenant, size).load((t) => {
    t.root();
    if (last && last.size <= size) t.rootAt(last.size);
  });
  const root = tree.root();
  if (last && last.size === size && root.toString("hex") === last.rootHash) return { tree, note: last.note, logId };
  if (last) {
    const problem = rewriteOf(ctx, tenant, tree, last);
    if (problem) {
      ctx.log.error(
        { tenant, signedSize: last.size, signedRoot: last.rootHash, logSize: tree.size },
        `trust log of ${tenant} was rewritten, refusing to sign a checkpoint: ${problem}`,
      );
      throw new GantryError("internal", "internal error");
    }
    if (last.size === size) return { tree, note: last.note, logId };
  }
  const note = signCheckpoint(ctx.keys.current, logOrigin(tenant), size, root);
  // Another replica may have signed the same size: the same note (Ed25519 is deterministic) or, after
  // a rotation, one by the other key; either stands.
  await ctx.db.checkpoint.createMany({
    data: [{ tenant, size, rootHash: root.toString("hex"), note, signedAt: new Date(ctx.now()) }],
    skipDuplicates: true,
  });
  return { tree, note, logId };
}

/**
 * The consistency proof from the tenant's log at `fromSize` to the tree of `signed` (RFC 9162
 * §2.1.4.1), as hex hashes; 400 when `fromSize` is beyond it.
 */
export async function consistencyFrom(signed: SignedTree, fromSize: number, path: string): Promise<string[]> {
  if (fromSize > signed.tree.size)
    throw new GantryError("invalid_request", `fromSize ${fromSize} is beyond the log's ${signed.tree.size} leaves.`, {
      reason: "Send the size of a checkpoint you kept (its second line); the log only grows.",
      details: [{ path, message: `at most ${signed.tree.size}`, code: "maximum" }],
    });
  await signed.tree.load((t) => t.consistency(fromSize));
  return signed.tree.consistency(fromSize).map((h) => h.toString("hex"));
}
