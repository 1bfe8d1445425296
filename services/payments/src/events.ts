/**
 * @module payments/events
 * Status changes on NATS, after the commit that made them (stream PAYMENTS, subjects
 * `payments.payment.<status>`, `payments.payout.<status>`, `payments.batch.<status>`). Each message
 * carries ids, amounts and statuses, never an account number; its `msgID` (record id + status) lets
 * JetStream drop a duplicate publish. A failed publish is logged: the record already holds the change.
 */
import { encodeJson, ensureStream, type Logger, type Nats } from "@gantry/kit";

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

export async function publishStatus(ctx: { nats: Nats; log: Logger }, m: StatusMessage): Promise<void> {
  try {
    await ctx.nats.js.publish(`payments.${m.kind}.${m.status}`, encodeJson(m), { msgID: `${m.id}.${m.status}` });
  } catch (err) {
    ctx.log.warn({ id: m.id, status: m.status, err: String(err) }, "publishing a payments event failed");
  }
}
