/**
 * @module payments/config
 * The payments service's own environment. With none of it set, every ability runs on the built-in
 * **sandbox** provider (deterministic, results marked `mode: "sandbox"`): that is the quick start.
 * A provider becomes live when its base URL and platform secret key are configured; a tenant's own
 * connection (connections service `ResolveCredential`) takes precedence over the platform key when
 * `PAYMENTS_TENANT_CREDENTIALS` is on.
 */
import { defineEnv, type ServiceConfig } from "@gantry/kit";

export const PAYMENTS_ENV = defineEnv({
  PAYMENTS_PROVIDER_A_URL: {
    type: "string",
    pattern: "^https?://",
    description:
      "provider_a (Stripe API) base URL, e.g. https://api.stripe.com; with PAYMENTS_PROVIDER_A_SECRET_KEY it makes provider_a live (else sandbox)",
  },
  PAYMENTS_PROVIDER_A_SECRET_KEY: {
    type: "string",
    description: "provider_a platform secret key (`sk_…`), used when the tenant has no connection of its own",
  },
  PAYMENTS_PROVIDER_A_WEBHOOK_SECRET: {
    type: "string",
    description: "provider_a webhook signing secret (`whsec_…`): checks the Stripe-Signature header of webhooks",
  },
  PAYMENTS_PROVIDER_B_URL: {
    type: "string",
    pattern: "^https?://",
    description:
      "provider_b (Paystack API) base URL, e.g. https://api.paystack.co; with PAYMENTS_PROVIDER_B_SECRET_KEY it makes provider_b live (else sandbox)",
  },
  PAYMENTS_PROVIDER_B_SECRET_KEY: {
    type: "string",
    description:
      "provider_b platform secret key (`sk_…`); also the HMAC-SHA512 key of the x-paystack-signature webhook header",
  },
  PAYMENTS_APPLICATION_FEE_BPS: {
    type: "integer",
    minimum: 0,
    maximum: 10_000,
    default: 0,
    description:
      "platform fee, in basis points of the amount (rounded down to a minor unit), taken from provider_a direct charges on a tenant's connected account",
  },
  PAYMENTS_PAYOUT_PROVIDER: {
    type: "string",
    enum: ["provider_a", "provider_b"],
    default: "provider_b",
    description: "provider that resolves accounts (payout.verify_account) and carries payouts",
  },
  PAYMENTS_TENANT_CREDENTIALS: {
    type: "boolean",
    default: true,
    description:
      "ask the connections service for the tenant's own provider credential (service keys provider_a / provider_b) before using the platform key; off: always the platform key",
  },
  PAYMENTS_WEBHOOK_TOLERANCE_SECONDS: {
    type: "integer",
    minimum: 1,
    maximum: 3600,
    default: 300,
    description: "how old a signed provider_a webhook may be (Stripe-Signature timestamp) before it is refused",
  },
  PAYMENTS_FINGERPRINT_KEY: {
    type: "string",
    minLength: 32,
    description:
      "secret (32+ characters) keying the account-number fingerprints that find a verified recipient again; unset: a public development key (a warning in production)",
  },
  PAYMENTS_RESEND_SWEEP_SECONDS: {
    type: "integer",
    minimum: 0,
    maximum: 86_400,
    default: 60,
    description:
      "every so many seconds, payouts still pending (not known to have reached the provider) for longer than that are looked up and sent again under the same reference; 0 turns the sweep off",
  },
  PAYMENTS_PROVIDER_TIMEOUT_MS: {
    type: "integer",
    minimum: 100,
    maximum: 120_000,
    default: 15_000,
    description: "timeout of one request to a provider",
  },
  PAYMENTS_ACCEPTING_STATEMENTS: {
    type: "integer",
    minimum: 0,
    maximum: 32,
    default: 2,
    description:
      "accepting statements of payout.send, and of payment.initiate, that one tenant may run at once: payouts (payments) that arrive while they run are accepted together by the next one, one statement's fixed cost in Postgres for several; 0: each call's statement runs alone, as soon as it comes",
  },
});

export type PaymentsConfig = ServiceConfig<typeof PAYMENTS_ENV>;
