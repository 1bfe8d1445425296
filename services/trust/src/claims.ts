/**
 * @module trust/claims
 * Labelled claims (spec §2.5): `observed` claims must cite at least one receipt, and every receipt
 * they cite must be one of the tenant's, made under a run (only such calls have receipts); otherwise
 * 400 naming the claim. `inference` and `unverified` claims may cite anything: their receipts are
 * resolved where they exist and shown as given.
 */
import { GantryError } from "@gantry/kit";
import type { Context } from "./context.ts";
import type { Claim } from "./db.ts";
import { newId } from "./ids.ts";
import { type ReceiptView, receiptViews, requireReceipts } from "./receipts.ts";

export interface ClaimInput {
  text: string;
  status: "observed" | "inference" | "unverified";
  receiptIds: string[];
}

/** Checks the claims against the tenant's receipts; returns the receipts they cite, resolved. */
export async function checkClaims(
  ctx: Context,
  tenant: string,
  claims: readonly ClaimInput[],
  path: string,
): Promise<Map<string, ReceiptView>> {
  const views = await receiptViews(
    ctx,
    tenant,
    claims.flatMap((c) => c.receiptIds),
  );
  claims.forEach((c, i) => {
    if (c.status !== "observed") return;
    if (!c.receiptIds.length)
      throw new GantryError("invalid_request", `Claim ${i} is observed but cites no receipt.`, {
        reason: "Cite the receipts (request ids) it was observed in, or label it inference or unverified.",
        details: [
          {
            path: `${path}/${i}/receiptIds`,
            message: "An observed claim cites at least one receipt",
            code: "receipt_required",
          },
        ],
      });
    requireReceipts(views, c.receiptIds, `${path}/${i}/receiptIds`, `Claim ${i} ("${c.text.slice(0, 60)}")`);
  });
  return views;
}

export function claimRows(
  tenant: string,
  claims: readonly ClaimInput[],
  owner: { runId?: string | null; publicationId?: string | null },
  now: number,
) {
  return claims.map((c, i) => ({
    id: newId("claim", now),
    tenant,
    runId: owner.runId ?? null,
    publicationId: owner.publicationId ?? null,
    position: i,
    text: c.text,
    status: c.status,
    receiptIds: c.receiptIds,
    createdAt: new Date(now),
  }));
}

export function claimView(row: Claim, views: ReadonlyMap<string, ReceiptView>) {
  return {
    id: row.id,
    text: row.text,
    status: row.status as ClaimInput["status"],
    receiptIds: row.receiptIds,
    receipts: row.receiptIds.flatMap((id) => {
      const v = views.get(id);
      return v ? [v] : [];
    }),
    created: row.createdAt.toISOString(),
  };
}
