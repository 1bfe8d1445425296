/**
 * @module payments/webhooks
 * Provider webhooks: the gateway's public `POST /v1/webhooks/payments/provider_a` and
 * `/v1/webhooks/payments/provider_b` arrive here through the kit's HttpIngress
 * (kit/src/ingress.ts) with the raw body, in system scope.
 *
 * - The signature is checked over the raw body bytes, before anything is parsed: provider_a by the
 *   Stripe-Signature scheme (HMAC-SHA256 of `t.body` with the endpoint secret, timestamp within
 *   `PAYMENTS_WEBHOOK_TOLERANCE_SECONDS`; the SDK's verifier, timing-safe); provider_b by
 *   `x-paystack-signature` (hex HMAC-SHA512 of the body with the secret key), compared timing-safe.
 *   A forged, stale or unsigned request is 400 and changes nothing (the gateway has checked nothing but
 *   size and rate).
 * - Replay-safe: the event id is recorded in the transaction that applies it (webhook_events); a
 *   second delivery of the same event is acknowledged and ignored.
 * - The record is found by our id in the event (`metadata.gantry_payment_id` / `gantry_payout_id`,
 *   Paystack's `reference`) and moved through the same state machine as polling: forward only.
 * - Events about records we do not hold, and event types we do not use, are acknowledged (200).
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type Stripe from "stripe";
import { GantryError, type IngressRequest, type IngressResponse } from "@gantry/kit";
import type { Context } from "./context.ts";
import { advancePayment } from "./payments.ts";
import { advancePayout } from "./payouts.ts";
import { payoutState, sessionState, stripeClient } from "./providers/provider-a.ts";
import { transferStatus } from "./providers/provider-b.ts";

type Handled = { handled: boolean; duplicate?: boolean };

async function findPayment(ctx: Context, id: string | undefined, providerReference: string | undefined) {
  if (id) return ctx.db.payment.findUnique({ where: { id } });
  if (providerReference) return ctx.db.payment.findFirst({ where: { providerReference } });
  return null;
}

async function findPayout(ctx: Context, id: string | undefined, providerReference: string | undefined) {
  if (id) return ctx.db.payout.findUnique({ where: { id } });
  if (providerReference) return ctx.db.payout.findFirst({ where: { providerReference } });
  return null;
}

/** provider_a (Stripe events). */
export async function handleStripeEvent(ctx: Context, event: Stripe.Event): Promise<Handled> {
  const webhook = { provider: "provider_a", eventId: event.id, type: event.type };
  const origin = { source: "webhook" as const, webhook };
  if (event.type.startsWith("checkout.session.")) {
    const session = event.data.object as Stripe.Checkout.Session;
    const p = await findPayment(ctx, session.metadata?.gantry_payment_id, session.id);
    if (!p) return { handled: false };
    const state =
      event.type === "checkout.session.async_payment_failed"
        ? { status: "failed" as const, failureCode: "payment_failed", failureMessage: "The delayed payment failed." }
        : event.type === "checkout.session.async_payment_succeeded"
          ? { status: "succeeded" as const }
          : sessionState(session);
    const r = await advancePayment(ctx, p.id, state, origin);
    return { handled: true, duplicate: r.duplicate };
  }
  if (event.type === "charge.refunded") {
    const charge = event.data.object as Stripe.Charge;
    const p = await findPayment(ctx, charge.metadata?.gantry_payment_id, undefined);
    if (!p || !charge.refunded) return { handled: false };
    const r = await advancePayment(ctx, p.id, { status: "refunded" }, origin);
    return { handled: true, duplicate: r.duplicate };
  }
  if (event.type.startsWith("payout.")) {
    const payout = event.data.object as Stripe.Payout;
    const p = await findPayout(ctx, payout.metadata?.gantry_payout_id, payout.id);
    if (!p) return { handled: false };
    const r = await advancePayout(ctx, p.id, payoutState(payout), origin);
    return { handled: true, duplicate: r.duplicate };
  }
  return { handled: false };
}

interface PaystackEvent {
  event: string;
  data: { id?: number | string; reference?: string; status?: string; gateway_response?: string };
}

/** The Paystack events that report a transfer's outcome, by the transfer status they mean. */
const TRANSFER_EVENTS: Record<string, string> = {
  "transfer.success": "success",
  "transfer.failed": "failed",
  "transfer.reversed": "reversed",
};

/** provider_b (Paystack events): `charge.success` and the transfer outcomes; others are acknowledged. */
export async function handlePaystackEvent(ctx: Context, e: PaystackEvent): Promise<Handled> {
  const data = e.data ?? {};
  const reference = typeof data.reference === "string" ? data.reference : undefined;
  const key = data.id ?? reference;
  if (typeof e.event !== "string" || key === undefined)
    throw new GantryError("invalid_request", "not a provider_b event");
  const origin = {
    source: "webhook" as const,
    webhook: { provider: "provider_b", eventId: `${e.event}:${key}`, type: e.event },
  };
  if (e.event === "charge.success") {
    const p = await findPayment(ctx, undefined, reference);
    if (!p) return { handled: false };
    const r = await advancePayment(ctx, p.id, { status: "succeeded" }, origin);
    return { handled: true, duplicate: r.duplicate };
  }
  const transfer = TRANSFER_EVENTS[e.event];
  if (transfer) {
    const p = await findPayout(ctx, reference?.startsWith("po_") ? reference : undefined, reference);
    if (!p) return { handled: false };
    const status = transferStatus(transfer);
    const state =
      status === "failed"
        ? { status, failureCode: "transfer_failed", failureMessage: data.gateway_response ?? "The transfer failed." }
        : { status };
    const r = await advancePayout(ctx, p.id, state, origin);
    return { handled: true, duplicate: r.duplicate };
  }
  return { handled: false };
}

/** Checks `x-paystack-signature` (hex HMAC-SHA512 of the raw body), timing-safe. */
export function paystackSignatureValid(body: Buffer, header: string | undefined, secretKey: string): boolean {
  if (!header || !/^[0-9a-f]{128}$/i.test(header)) return false;
  const expected = createHmac("sha512", secretKey).update(body).digest();
  return timingSafeEqual(expected, Buffer.from(header, "hex"));
}

/**
 * The payments service's HttpIngress handler: `POST /v1/webhooks/payments/provider_a|provider_b`
 * at the gateway arrive here as `path` `/provider_a` or `/provider_b`.
 */
export async function webhookIngress(ctx: Context, req: IngressRequest): Promise<IngressResponse> {
  const provider = req.route === "webhooks" ? /^\/(provider_a|provider_b)$/.exec(req.path)?.[1] : undefined;
  if (!provider)
    throw new GantryError(
      "not_found",
      "No such payments endpoint; providers post to /v1/webhooks/payments/provider_a or /v1/webhooks/payments/provider_b.",
    );
  const body = Buffer.from(req.body);
  const c = ctx.config;
  let handled: Handled;
  if (provider === "provider_a") {
    if (!c.PAYMENTS_PROVIDER_A_WEBHOOK_SECRET)
      throw new GantryError(
        "not_found",
        "provider_a webhooks are not configured (PAYMENTS_PROVIDER_A_WEBHOOK_SECRET).",
      );
    let event: Stripe.Event;
    try {
      const stripe = await stripeClient(
        c.PAYMENTS_PROVIDER_A_URL ?? "https://api.stripe.com",
        "sk_webhook_verification_only",
      );
      event = stripe.webhooks.constructEvent(
        body,
        req.headers["stripe-signature"] ?? "",
        c.PAYMENTS_PROVIDER_A_WEBHOOK_SECRET,
        c.PAYMENTS_WEBHOOK_TOLERANCE_SECONDS,
      );
    } catch {
      throw new GantryError(
        "invalid_request",
        "Invalid Stripe-Signature (forged, stale or not signed with the endpoint secret).",
      );
    }
    handled = await handleStripeEvent(ctx, event);
  } else {
    if (!c.PAYMENTS_PROVIDER_B_SECRET_KEY)
      throw new GantryError("not_found", "provider_b webhooks are not configured (PAYMENTS_PROVIDER_B_SECRET_KEY).");
    if (!paystackSignatureValid(body, req.headers["x-paystack-signature"], c.PAYMENTS_PROVIDER_B_SECRET_KEY))
      throw new GantryError("invalid_request", "Invalid x-paystack-signature.");
    let event: PaystackEvent;
    try {
      event = JSON.parse(body.toString("utf8")) as PaystackEvent;
    } catch {
      throw new GantryError("invalid_request", "The webhook body is not JSON.");
    }
    handled = await handlePaystackEvent(ctx, event);
  }
  return {
    status: 200,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ received: true, ...handled }),
  };
}
