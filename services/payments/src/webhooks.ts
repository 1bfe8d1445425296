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
 * - A signed event still only speaks for the account it came from and the money it names: a Stripe
 *   event's `account` (Connect) must be the account the record's object lives on (none for the
 *   platform's own), a Paystack event must be signed by the key of the account the record was made
 *   on (the platform's, or the tenant's own), and the event's amount and currency must be the
 *   record's. Anything else is refused — acknowledged (200, `handled: false`, `refused`), logged,
 *   never applied — so a charge elsewhere, or of another amount, is never credited.
 * - Events about records we do not hold, and event types we do not use, are acknowledged (200).
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type Stripe from "stripe";
import { GantryError, type IngressRequest, type IngressResponse } from "@gantry/kit";
import type { Context } from "./context.ts";
import { advancePayment } from "./payments.ts";
import { advancePayout } from "./payouts.ts";
import { payoutState, sessionState, stripeClient } from "./providers/provider-a.ts";
import { tenantSecretKey } from "./providers/index.ts";
import { transferStatus } from "./providers/provider-b.ts";

type Handled = { handled: boolean; duplicate?: boolean; refused?: string };

/** Why a signed event does not fit its record, or null when it does. */
function mismatch(
  record: { id: string; amountMinor: bigint; currency: string },
  event: { account: string | null; amount: unknown; currency: unknown },
  expectedAccount: string | null,
): string | null {
  if (event.account !== expectedAccount) return "account_mismatch";
  if (typeof event.amount !== "number" || BigInt(event.amount) !== record.amountMinor) return "amount_mismatch";
  if (typeof event.currency !== "string" || event.currency.toUpperCase() !== record.currency)
    return "currency_mismatch";
  return null;
}

function refuse(ctx: Context, provider: string, eventId: string, refId: string, refused: string): Handled {
  ctx.log.warn({ provider, eventId, refId, refused }, "webhook event does not match its record; not applied");
  return { handled: false, refused };
}

// By reference, a live record only: the sandbox names its own references and no provider sends
// events about them, so the reference indexes hold live records only (migration
// 20270110000000_provider_reference_live) and this filter lets the lookup use them.
const LIVE = { mode: { not: "sandbox" } } as const;

async function findPayment(ctx: Context, id: string | undefined, providerReference: string | undefined) {
  if (id) return ctx.db.payment.findFirst({ where: { id } });
  if (providerReference) return ctx.db.payment.findFirst({ where: { providerReference, ...LIVE } });
  return null;
}

async function findPayout(ctx: Context, id: string | undefined, providerReference: string | undefined) {
  if (id) return ctx.db.payout.findFirst({ where: { id } });
  if (providerReference) return ctx.db.payout.findFirst({ where: { providerReference, ...LIVE } });
  return null;
}

/** provider_a (Stripe events). */
export async function handleStripeEvent(ctx: Context, event: Stripe.Event): Promise<Handled> {
  const webhook = { provider: "provider_a", eventId: event.id, type: event.type };
  const origin = { source: "webhook" as const, webhook };
  const account = event.account ?? null;
  if (event.type.startsWith("checkout.session.")) {
    const session = event.data.object as Stripe.Checkout.Session;
    const p = await findPayment(ctx, session.metadata?.gantry_payment_id, session.id);
    if (!p) return { handled: false };
    const wrong = mismatch(p, { account, amount: session.amount_total, currency: session.currency }, p.providerAccount);
    if (wrong) return refuse(ctx, "provider_a", event.id, p.id, wrong);
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
    const wrong = mismatch(p, { account, amount: charge.amount, currency: charge.currency }, p.providerAccount);
    if (wrong) return refuse(ctx, "provider_a", event.id, p.id, wrong);
    const r = await advancePayment(ctx, p.id, { status: "refunded" }, origin);
    return { handled: true, duplicate: r.duplicate };
  }
  if (event.type.startsWith("payout.")) {
    const payout = event.data.object as Stripe.Payout;
    const p = await findPayout(ctx, payout.metadata?.gantry_payout_id, payout.id);
    if (!p) return { handled: false };
    const wrong = mismatch(p, { account, amount: payout.amount, currency: payout.currency }, p.providerAccount);
    if (wrong) return refuse(ctx, "provider_a", event.id, p.id, wrong);
    const r = await advancePayout(ctx, p.id, payoutState(payout), origin);
    return { handled: true, duplicate: r.duplicate };
  }
  return { handled: false };
}

interface PaystackEvent {
  event: string;
  data: {
    id?: number | string;
    reference?: string;
    status?: string;
    gateway_response?: string;
    amount?: unknown;
    currency?: unknown;
  };
}

/** The record a Paystack event is about: a payment (charge.*) or a payout (transfer.*). */
async function paystackRecord(ctx: Context, e: PaystackEvent) {
  const reference = typeof e.data?.reference === "string" ? e.data.reference : undefined;
  if (!reference || typeof e.event !== "string") return null;
  if (e.event.startsWith("charge.")) return findPayment(ctx, undefined, reference);
  if (e.event.startsWith("transfer."))
    return findPayout(ctx, reference.startsWith("po_") ? reference : undefined, reference);
  return null;
}

/** The Paystack events that report a transfer's outcome, by the transfer status they mean. */
const TRANSFER_EVENTS: Record<string, string> = {
  "transfer.success": "success",
  "transfer.failed": "failed",
  "transfer.reversed": "reversed",
};

/**
 * provider_b (Paystack events): `charge.success` and the transfer outcomes; others are acknowledged.
 * `signer` is whose key signed the event: only records made on that account are moved by it.
 */
export async function handlePaystackEvent(
  ctx: Context,
  e: PaystackEvent,
  signer: "platform" | "tenant" = "platform",
): Promise<Handled> {
  const data = e.data ?? {};
  const reference = typeof data.reference === "string" ? data.reference : undefined;
  const key = data.id ?? reference;
  if (typeof e.event !== "string" || key === undefined)
    throw new GantryError("invalid_request", "not a provider_b event");
  const eventId = `${e.event}:${key}`;
  const origin = { source: "webhook" as const, webhook: { provider: "provider_b", eventId, type: e.event } };
  const fits = (p: { id: string; amountMinor: bigint; currency: string; credentialSource: string }) =>
    p.credentialSource !== signer
      ? "account_mismatch"
      : mismatch(p, { account: null, amount: data.amount, currency: data.currency }, null);
  if (e.event === "charge.success") {
    const p = await findPayment(ctx, undefined, reference);
    if (!p) return { handled: false };
    const wrong = fits(p);
    if (wrong) return refuse(ctx, "provider_b", eventId, p.id, wrong);
    const r = await advancePayment(ctx, p.id, { status: "succeeded" }, origin);
    return { handled: true, duplicate: r.duplicate };
  }
  const transfer = TRANSFER_EVENTS[e.event];
  if (transfer) {
    const p = await findPayout(ctx, reference?.startsWith("po_") ? reference : undefined, reference);
    if (!p) return { handled: false };
    const wrong = fits(p);
    if (wrong) return refuse(ctx, "provider_b", eventId, p.id, wrong);
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
    const signature = req.headers["x-paystack-signature"];
    const platform = paystackSignatureValid(body, signature, c.PAYMENTS_PROVIDER_B_SECRET_KEY);
    let event: PaystackEvent;
    try {
      event = JSON.parse(body.toString("utf8")) as PaystackEvent;
    } catch {
      throw new GantryError(
        "invalid_request",
        platform ? "The webhook body is not JSON." : "Invalid x-paystack-signature.",
      );
    }
    if (!platform) {
      // Not the platform's account: perhaps a tenant's own Paystack account, which signs with its own
      // key. The (still unverified) body only says which record to fetch; that record's tenant's key
      // must have signed it, so a tenant can never vouch for another tenant's or the platform's records.
      const record = await paystackRecord(ctx, event);
      const key =
        record && record.provider === "provider_b" && record.mode === "live" && record.credentialSource === "tenant"
          ? await tenantSecretKey(ctx, record.tenant, "provider_b", req.request_id)
          : null;
      if (!key || !paystackSignatureValid(body, signature, key))
        throw new GantryError("invalid_request", "Invalid x-paystack-signature.");
    }
    handled = await handlePaystackEvent(ctx, event, platform ? "platform" : "tenant");
  }
  return {
    status: 200,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ received: true, ...handled }),
  };
}
