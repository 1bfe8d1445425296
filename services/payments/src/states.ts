/**
 * @module payments/states
 * The state machines, forward-only (README "State machines"):
 *
 * - payment: pending → processing → succeeded | failed | cancelled | expired; succeeded → refunded;
 * - payout: pending → processing → paid | failed | cancelled; paid → reversed;
 * - batch: pending → processing → completed | partially_failed | failed (derived from its items).
 *
 * A provider may skip a step (pending → succeeded); it may never go back, and a final status only
 * moves along its own edge (succeeded → refunded, paid → reversed). Webhooks and polling both go
 * through {@link canMove}, so whichever arrives first wins and the other is a no-op.
 */
import type { PaymentStatus, PayoutStatus } from "./providers/types.ts";

const PAYMENT_RANK: Record<PaymentStatus, number> = {
  pending: 0,
  processing: 1,
  succeeded: 2,
  failed: 2,
  cancelled: 2,
  expired: 2,
  refunded: 3,
};

const PAYOUT_RANK: Record<PayoutStatus, number> = {
  pending: 0,
  processing: 1,
  paid: 2,
  failed: 2,
  cancelled: 2,
  reversed: 3,
};

/** Statuses after which only one further edge exists. */
const ONLY_NEXT: Record<string, string> = { succeeded: "refunded", paid: "reversed" };
const FINAL = new Set(["failed", "cancelled", "expired", "refunded", "reversed"]);

function move(rank: Record<string, number>, from: string, to: string): boolean {
  if (from === to || FINAL.has(from)) return false;
  const only = ONLY_NEXT[from];
  if (only) return only === to;
  // refunded and reversed are reached only from succeeded and paid.
  if (rank[to] === 3) return false;
  return rank[to] > rank[from];
}

export function canMovePayment(from: PaymentStatus, to: PaymentStatus): boolean {
  return move(PAYMENT_RANK, from, to);
}

export function canMovePayout(from: PayoutStatus, to: PayoutStatus): boolean {
  return move(PAYOUT_RANK, from, to);
}

export function isFinalPayout(s: string): boolean {
  return s === "paid" || s === "failed" || s === "cancelled" || s === "reversed";
}

export type BatchStatus = "pending" | "processing" | "completed" | "partially_failed" | "failed";

/** A batch's status from its items' statuses. */
export function batchStatus(items: readonly string[]): BatchStatus {
  if (!items.every(isFinalPayout)) return items.some((s) => s !== "pending") ? "processing" : "pending";
  const paid = items.filter((s) => s === "paid").length;
  if (paid === items.length) return "completed";
  return paid === 0 ? "failed" : "partially_failed";
}
