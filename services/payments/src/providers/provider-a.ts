/**
 * @module payments/providers/provider-a
 * provider_a: Stripe's API through the official SDK (`stripe`), pointed at a configurable base URL
 * (production https://api.stripe.com; tests run Stripe's own stripe-mock). Payments are Checkout
 * Sessions (the hosted payment page; `recipientId` routes the funds to a connected account as a
 * destination charge), payouts are Stripe payouts to a bank account registered as an external
 * account token, the balance is `GET /v1/balance`. Every creating request carries our record id as
 * Stripe's Idempotency-Key, so a retried request never creates a second object.
 *
 * Status mapping (Stripe → ours): Checkout Session `open` → pending, `complete` + `paid` →
 * succeeded, `complete` + `unpaid` → processing (delayed payment methods), `expired` → expired;
 * payout `pending` / `in_transit` → processing, `paid` → paid, `failed` → failed, `canceled` →
 * cancelled.
 */
import type Stripe from "stripe";
import { GantryError } from "@gantry/kit";
import { accountOf } from "../settlement.ts";
import { providerRefused, providerUnreachable } from "./errors.ts";
import type { CredentialSource, PaymentState, PayoutState, Provider } from "./types.ts";

export interface ProviderOptions {
  baseUrl: string;
  secretKey: string;
  credentialSource: CredentialSource;
  timeoutMs: number;
  /** provider_a: the tenant's connected account; payments become direct charges on it. */
  connectedAccount?: string;
  /** provider_a direct charges: the platform's fee in basis points. */
  applicationFeeBps?: number;
}

/** The fee in minor units: basis points of the amount, rounded down (integer arithmetic only). */
export function applicationFee(amountMinor: bigint, bps: number): bigint {
  return (amountMinor * BigInt(bps)) / 10_000n;
}

// The SDK holds ≈ 20 MiB once loaded: imported when provider_a is first used, which the sandbox
// provider (the default) never does.
let sdk: typeof Stripe | undefined;
let loading: Promise<typeof Stripe> | undefined;
const loadSdk = () =>
  (loading ??= import("stripe").then((m) => {
    sdk = m.default;
    return sdk;
  }));

export async function stripeClient(baseUrl: string, secretKey: string, timeoutMs = 15_000): Promise<Stripe> {
  const StripeSdk = await loadSdk();
  const url = new URL(baseUrl);
  return new StripeSdk(secretKey, {
    host: url.hostname,
    port: url.port || (url.protocol === "https:" ? 443 : 80),
    protocol: url.protocol === "https:" ? "https" : "http",
    timeout: timeoutMs,
    maxNetworkRetries: 2,
    telemetry: false,
  });
}

function translate(what: string, err: unknown): GantryError {
  if (err instanceof GantryError) return err;
  if (sdk && err instanceof sdk.errors.StripeConnectionError) return providerUnreachable("provider_a", err);
  if (sdk && err instanceof sdk.errors.StripeError) return providerRefused("provider_a", what, err.statusCode, err);
  return providerUnreachable("provider_a", err);
}

async function guarded<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw translate(what, err);
  }
}

export function sessionState(s: Stripe.Checkout.Session): PaymentState {
  const base = { providerReference: s.id, checkoutUrl: s.url ?? null };
  if (s.status === "expired")
    return { ...base, status: "expired", failureCode: "link_expired", failureMessage: "The checkout expired unpaid." };
  if (s.status === "complete") {
    return { ...base, status: s.payment_status === "unpaid" ? "processing" : "succeeded" };
  }
  return { ...base, status: "pending" };
}

export function payoutState(p: Stripe.Payout): PayoutState {
  const base = { providerReference: p.id };
  switch (p.status) {
    case "paid":
      return { ...base, status: "paid" };
    case "failed":
      return {
        ...base,
        status: "failed",
        failureCode: p.failure_code ?? "payout_failed",
        failureMessage: p.failure_message ?? "The payout failed.",
      };
    case "canceled":
      return { ...base, status: "cancelled" };
    default:
      return { ...base, status: "processing" };
  }
}

export async function stripeProvider(o: ProviderOptions): Promise<Provider> {
  const stripe = await stripeClient(o.baseUrl, o.secretKey, o.timeoutMs);
  // Every request on the connected account's behalf (direct charges, its payouts and balance).
  const onBehalf = o.connectedAccount ? { stripeAccount: o.connectedAccount } : {};
  return {
    name: "provider_a",
    mode: "live",
    credentialSource: o.credentialSource,
    account: accountOf("provider_a", "live", o.credentialSource, o.connectedAccount),
    connectedAccount: o.connectedAccount ?? null,
    createPayment: (p) =>
      guarded("create the checkout session", async () => {
        const fee = o.connectedAccount && o.applicationFeeBps ? applicationFee(p.amountMinor, o.applicationFeeBps) : 0n;
        const session = await stripe.checkout.sessions.create(
          {
            mode: "payment",
            line_items: [
              {
                quantity: 1,
                price_data: {
                  currency: p.currency.toLowerCase(),
                  unit_amount: Number(p.amountMinor),
                  product_data: { name: p.description ?? "Payment" },
                },
              },
            ],
            ...(p.callbackUrl ? { success_url: p.callbackUrl } : {}),
            ...(p.customerEmail ? { customer_email: p.customerEmail } : {}),
            client_reference_id: p.id,
            metadata: { gantry_payment_id: p.id },
            payment_intent_data: {
              metadata: { gantry_payment_id: p.id },
              ...(fee > 0n ? { application_fee_amount: Number(fee) } : {}),
              ...(p.recipientId && !o.connectedAccount ? { transfer_data: { destination: p.recipientId } } : {}),
            },
          },
          { idempotencyKey: p.id, ...onBehalf },
        );
        return {
          ...sessionState(session),
          expiresAt: session.expires_at ? new Date(session.expires_at * 1000) : null,
          applicationFeeMinor: fee > 0n ? fee : null,
        };
      }),
    paymentStatus: (p) =>
      guarded("read the checkout session", async () => {
        if (!p.providerReference) return { status: "pending" };
        return sessionState(await stripe.checkout.sessions.retrieve(p.providerReference, {}, onBehalf));
      }),
    resolveAccount: (a) =>
      guarded("verify the bank account", async () => {
        const token = await stripe.tokens.create(
          {
            bank_account: {
              country: a.country,
              currency: a.currency.toLowerCase(),
              account_number: a.accountNumber,
              ...(a.bankCode ? { routing_number: a.bankCode } : {}),
              ...(a.accountName ? { account_holder_name: a.accountName } : {}),
              account_holder_type: "individual",
            },
          },
          onBehalf,
        );
        const bank = token.bank_account;
        // Stripe does not confirm holder names: the name is the one registered.
        return {
          accountName: a.accountName ?? bank?.account_holder_name ?? "",
          bankName: bank?.bank_name ?? null,
          providerReference: token.id,
          nameConfirmed: false,
        };
      }),
    sendPayouts: (ps) =>
      guarded("create the payout", async () => {
        const out: PayoutState[] = [];
        for (const p of ps) {
          const payout = await stripe.payouts.create(
            {
              amount: Number(p.amountMinor),
              currency: p.currency.toLowerCase(),
              ...(p.description ? { description: p.description } : {}),
              metadata: { gantry_payout_id: p.id },
            },
            { idempotencyKey: p.id, ...onBehalf },
          );
          out.push(payoutState(payout));
        }
        return out;
      }),
    payoutStatus: (p) =>
      guarded("read the payout", async () => {
        if (!p.providerReference) return { status: "pending" };
        return payoutState(await stripe.payouts.retrieve(p.providerReference, {}, onBehalf));
      }),
    balance: () =>
      guarded("read the balance", async () => {
        const b = await stripe.balance.retrieve({}, onBehalf);
        return b.available.map((x) => ({ currency: x.currency.toUpperCase(), availableMinor: BigInt(x.amount) }));
      }),
  };
}
