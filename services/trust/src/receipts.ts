/**
 * @module trust/receipts
 * Receipts of calls made under a run: an in-toto Statement (subject: the request id with the input
 * hash; predicate: ability, result hash, outcome, status, run, permit, time) signed with Ed25519 as
 * a DSSE envelope, appended to the tenant's append-only Merkle log. The leaf is the RFC 6962 leaf
 * hash of the envelope's canonical JSON, so changing any byte of a receipt breaks both its
 * signature and its inclusion proof.
 *
 * Proofs are made when a receipt is read, from the O(log n) stored subtree hashes they need
 * (log-nodes.ts): against the log's size at that moment, with a checkpoint (C2SP signed note) for
 * that size and root, signed then if it is new and stored (checkpoints.ts, which first checks the
 * stored log still grows from the last checkpoint signed). Ed25519
 * signatures are deterministic, so the checkpoint of a given size is the same whenever it is made.
 */
import { GantryError } from "@gantry/kit";
import type { Context } from "./context.ts";
import type { ReceiptRow } from "./log-append.ts";
import { leafHash } from "./merkle.ts";
import { currentCheckpoint, type SignedTree } from "./checkpoints.ts";
import { type Envelope, envelopeJson, signEnvelope } from "./signing.ts";

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

const q = JSON.stringify;

/**
 * `canonicalJson(statementOf(f))`, written out: the statement's shape is fixed, so its keys are
 * placed here in RFC 8785 order and only the values are serialised (JSON.stringify of a string or an
 * integer is already their RFC 8785 form). The generic walk sorted the same keys on every receipt.
 */
export function statementJson(f: ReceiptFields): string {
  const outcome = f.status === 200 ? "succeeded" : "failed";
  return (
    `{"_type":${q(STATEMENT_TYPE)},"predicate":{"ability":${q(f.ability)},"at":${q(f.at.toISOString())},` +
    `"inputHash":${q(f.inputHash)},"outcome":"${outcome}","permitId":${q(f.permitId)},"requestId":${q(f.requestId)},` +
    `"resultHash":${q(f.resultHash)},"runId":${q(f.runId)},"status":${q(f.status)},"tenant":${q(f.tenant)}},` +
    `"predicateType":${q(PREDICATE_TYPE)},"subject":[{"digest":{"sha256":${q(f.inputHash)}},"name":${q(f.requestId)}}]}`
  );
}

/** The receipt signed, as its log row is written (log-append.ts appends it). */
export function receiptRow(ctx: Context, f: ReceiptFields): ReceiptRow {
  const payload = Buffer.from(statementJson(f));
  const envelope = envelopeJson(signEnvelope(ctx.keys.current, payload));
  return {
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
    envelope,
    leaf: leafHash(envelope),
  };
}

/**
 * Signs and appends the receipt (log-append.ts batches the appends of a tenant); a second record
 * of the same request id returns the first one's index.
 */
export async function recordReceipt(ctx: Context, f: ReceiptFields): Promise<{ requestId: string; logIndex: number }> {
  const logIndex = await ctx.appender.append(receiptRow(ctx, f));
  return { requestId: f.requestId, logIndex };
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
  const proven = rows.filter((r) => r.logIndex < tree.size).map((r) => r.logIndex);
  await tree.load((t) => {
    for (const i of proven) t.path(i);
  });
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
