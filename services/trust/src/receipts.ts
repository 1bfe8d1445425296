/**
 * @module trust/receipts
 * Receipts of calls made under a run: an in-toto Statement (subject: the request id with the input
 * hash; predicate: ability, result hash, outcome, status, run, permit, time) signed with Ed25519 as
 * a DSSE envelope, appended to the tenant's append-only Merkle log. The leaf is the RFC 6962 leaf
 * hash of the envelope's canonical JSON, so changing any byte of a receipt breaks both its
 * signature and its inclusion proof.
 *
 * Proofs are made when a receipt is read ({@link LogCache}): against the log's size at that moment, with a checkpoint
 * (C2SP signed note) for that size and root, signed then if it is new and stored (checkpoints.ts,
 * which first checks the stored log still grows from the last checkpoint signed). Ed25519
 * signatures are deterministic, so the checkpoint of a given size is the same whenever it is made.
 */
import { canonicalJson, GantryError } from "@gantry/kit";
import type { Context } from "./context.ts";
import type { Receipt } from "./db.ts";
import { leafHash, MerkleLevels } from "./merkle.ts";
import { currentCheckpoint, type SignedTree } from "./checkpoints.ts";
import { type Envelope, signEnvelope } from "./signing.ts";

export const STATEMENT_TYPE = "https://in-toto.io/Statement/v1";
export const PREDICATE_TYPE = "https://gantry.dev/attestations/receipt/v1";

export interface ReceiptFields {
  tenant: string;
  requestId: string;
  runId: string;
  permitId: string | null;
  ability: string;
  inputHash: string;
  resultHash: string | null;
  status: number;
  at: Date;
}

export { logOrigin } from "./checkpoints.ts";

export function statementOf(f: ReceiptFields) {
  return {
    _type: STATEMENT_TYPE,
    subject: [{ name: f.requestId, digest: { sha256: f.inputHash } }],
    predicateType: PREDICATE_TYPE,
    predicate: {
      requestId: f.requestId,
      tenant: f.tenant,
      ability: f.ability,
      inputHash: f.inputHash,
      resultHash: f.resultHash,
      outcome: f.status === 200 ? "succeeded" : "failed",
      status: f.status,
      runId: f.runId,
      permitId: f.permitId,
      at: f.at.toISOString(),
    },
  };
}

/** Signs and appends the receipt; a second record of the same request id returns the first. */
export async function recordReceipt(ctx: Context, f: ReceiptFields): Promise<Receipt> {
  const existing = await ctx.db.receipt.findFirst({ where: { requestId: f.requestId, tenant: f.tenant } });
  if (existing) return existing;
  const payload = Buffer.from(canonicalJson(statementOf(f)));
  const envelope = signEnvelope(ctx.keys.current, payload);
  const leaf = leafHash(canonicalJson(envelope)).toString("hex");
  return ctx.db.$transaction(async (tx) => {
    // The upsert takes the tenant's log row lock until commit: appends of one tenant are serial.
    const [{ size }] = (await tx.$queryRaw<{ size: number }[]>`
      INSERT INTO "trust"."logs" (tenant, size) VALUES (${f.tenant}, 1)
      ON CONFLICT (tenant) DO UPDATE SET size = "logs".size + 1 RETURNING size`) as [{ size: number }];
    return tx.receipt.create({
      data: {
        requestId: f.requestId,
        tenant: f.tenant,
        runId: f.runId,
        permitId: f.permitId,
        ability: f.ability,
        inputHash: f.inputHash,
        resultHash: f.resultHash,
        outcome: f.status === 200 ? "succeeded" : "failed",
        status: f.status,
        at: f.at,
        envelope: envelope as object,
        leafHash: leaf,
        logIndex: size - 1,
      },
    });
  });
}

/**
 * Each tenant's log as this process last read it. The log is append-only, so a read fetches only
 * the leaves added since. It keeps the contiguous prefix only: appends of one tenant commit in
 * index order almost always, but a reader could see index n+1 committed before n, and a checkpoint
 * must never sign a tree that skips a leaf (the receipt at n+1 gets its proof on a later read).
 */
export class LogCache {
  private readonly trees = new Map<string, MerkleLevels>();
  private readonly maxTenants: number;

  constructor(maxTenants = 1000) {
    this.maxTenants = maxTenants;
  }

  /** The log's contiguous prefix; `fresh`: read every leaf from the database again, not the cache. */
  async tree(ctx: Pick<Context, "db">, tenant: string, fresh = false): Promise<MerkleLevels> {
    const cached = fresh ? undefined : this.trees.get(tenant);
    const leaves = cached ? cached.levels[0]! : [];
    const rows = await ctx.db.receipt.findMany({
      where: { tenant, logIndex: { gte: leaves.length } },
      select: { logIndex: true, leafHash: true },
      orderBy: { logIndex: "asc" },
    });
    const added: Buffer[] = [];
    for (const r of rows) {
      if (r.logIndex !== leaves.length + added.length) break;
      added.push(Buffer.from(r.leafHash, "hex"));
    }
    if (cached && added.length === 0) return cached;
    const tree = new MerkleLevels([...leaves, ...added]);
    this.trees.delete(tenant);
    this.trees.set(tenant, tree);
    if (this.trees.size > this.maxTenants) this.trees.delete(this.trees.keys().next().value!);
    return tree;
  }
}

export interface ReceiptView {
  requestId: string;
  ability: string;
  inputHash: string;
  resultHash: string | null;
  outcome: "succeeded" | "failed";
  status: number;
  runId: string | null;
  permitId: string | null;
  at: string;
  envelope: Envelope;
  inclusion: {
    logIndex: number;
    treeSize: number;
    rootHash: string;
    hashes: string[];
    checkpoint: string;
  } | null;
}

/**
 * The tenant's receipts with these request ids, by id, each with its inclusion proof against the
 * current log (or `signed`, the log and checkpoint the caller already read). Ids that are not receipts of the tenant are absent from the map.
 */
export async function receiptViews(
  ctx: Context,
  tenant: string,
  requestIds: readonly string[],
  signed?: SignedTree,
): Promise<Map<string, ReceiptView>> {
  const out = new Map<string, ReceiptView>();
  const ids = [...new Set(requestIds)];
  if (!ids.length) return out;
  const rows = await ctx.db.receipt.findMany({ where: { tenant, requestId: { in: ids } } });
  if (!rows.length) return out;
  const { tree, note: checkpoint } = signed ?? (await currentCheckpoint(ctx, tenant));
  const root = tree.root();
  for (const r of rows) {
    out.set(r.requestId, {
      requestId: r.requestId,
      ability: r.ability,
      inputHash: r.inputHash,
      resultHash: r.resultHash,
      outcome: r.outcome as "succeeded" | "failed",
      status: r.status,
      runId: r.runId,
      permitId: r.permitId,
      at: r.at.toISOString(),
      envelope: r.envelope as unknown as Envelope,
      inclusion:
        r.logIndex < tree.size
          ? {
              logIndex: r.logIndex,
              treeSize: tree.size,
              rootHash: root.toString("hex"),
              hashes: tree.path(r.logIndex).map((h) => h.toString("hex")),
              checkpoint,
            }
          : null,
    });
  }
  return out;
}

/** Every cited receipt must be one of the tenant's (receipts exist only for calls under a run). */
export function requireReceipts(
  views: ReadonlyMap<string, ReceiptView>,
  receiptIds: readonly string[],
  path: string,
  claim: string,
): void {
  const missing = receiptIds.filter((id) => !views.has(id));
  if (missing.length)
    throw new GantryError(
      "invalid_request",
      `${claim} cites ${missing.map((m) => `"${m}"`).join(", ")}, which ${missing.length === 1 ? "is not a receipt" : "are not receipts"} of this tenant made under a run.`,
      {
        reason: "An observed claim may only cite receipts (request ids) of calls this tenant made under a trust run.",
        details: missing.map((id) => ({
          path: `${path}/${receiptIds.indexOf(id)}`,
          message: `${id} is not a receipt of this tenant made under a run`,
          code: "receipt_not_found",
        })),
      },
    );
}
