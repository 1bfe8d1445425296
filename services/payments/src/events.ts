/**
 * @module payments/events
 * Status changes on NATS (stream PAYMENTS, subjects `payments.payment.<status>`,
 * `payments.payout.<status>`, `payments.batch.<status>`), queued in the kit's outbox in the
 * transaction that made the change and published by its relay once committed (kit/src/outbox.ts): a
 * crash or a NATS outage after the commit delays a message, never loses it. Each message carries
 * ids, amounts and statuses, never an account number; its `msgID` (record id + status) lets
 * JetStream drop a duplicate publish.
 */
import { enqueueEvents, ensureStream, type Nats, type OutboxEvent } from "@gantry/kit";

export const PAYMENTS_STREAM = { name: "PAYMENTS", subjects: ["payments.>"] };

export async function ensurePaymentsStream(nats: Nats): Promise<void> {
  await ensureStream(nats.jsm, PAYMENTS_STREAM);
}

export interface StatusMessage {
  kind: "payment" | "payout" | "batch";
  id: string;
  tenant: string;
  status: string;
  from: string | null;
  amount?: { minor: number; currency: string };
  contactId?: string | null;
  leadId?: string | null;
  batchId?: string | null;
  requestId: string | null;
  at: string;
}

/** The outbox row of a status message (`msgID` record id + status). */
export function statusEvent(m: StatusMessage): OutboxEvent {
  return { tenant: m.tenant, subject: `payments.${m.kind}.${m.status}`, msgId: `${m.id}.${m.status}`, payload: m };
}

/** Queues a status message inside the transaction of the change; the caller flushes the outbox after the commit. */
export async function queueStatus(tx: Parameters<typeof enqueueEvents>[0], m: StatusMessage): Promise<void> {
  await enqueueEvents(tx, "payments", [statusEvent(m)]);
}
