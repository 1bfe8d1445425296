/**
 * @module payments/providers/types
 * The neutral adapter every provider implements (sandbox, provider_a = Stripe's API, provider_b =
 * Paystack's API). Adapters translate their provider's statuses into ours (README: the mapping);
 * the service alone decides whether a status may move (src/states.ts).
 */
export type ProviderName = "provider_a" | "provider_b";
export type Mode = "sandbox" | "live";
export type CredentialSource = "tenant" | "platform";

export type PaymentStatus = "pending" | "processing" | "succeeded" | "failed" | "cancelled" | "expired" | "refunded";
export type PayoutStatus = "pending" | "processing" | "paid" | "failed" | "cancelled" | "reversed";

export interface PaymentRequest {
  /** Our payment id: the provider's idempotency key and reference. */
  id: string;
  amountMinor: bigint;
  currency: string;
  description: string | null;
  customerEmail: string | null;
  callbackUrl: string | null;
  recipientId: string | null;
}

export interface PaymentState {
  status: PaymentStatus;
  /** Platform application fee taken from the charge (provider_a direct charges), minor units. */
  applicationFeeMinor?: bigint | null;
  providerReference?: string | null;
  checkoutUrl?: string | null;
  expiresAt?: Date | null;
  failureCode?: string | null;
  failureMessage?: string | null;
}

export interface AccountQuery {
  country: string;
  currency: string;
  accountNumber: string;
  bankCode: string | null;
  accountName: string | null;
}

export interface ResolvedAccount {
  accountName: string;
  bankName: string | null;
  /** The provider's recipient id (transfer recipient code, external account id), or null. */
  providerReference: string | null;
  /** false when the provider does not confirm holder names (the name is the one given). */
  nameConfirmed?: boolean;
}

export interface PayoutRequest {
  /** Our payout id: the provider's idempotency key and transfer reference. */
  id: string;
  amountMinor: bigint;
  currency: string;
  description: string | null;
  /** The recipient's provider reference (from resolveAccount). */
  recipientReference: string | null;
  /** Last four characters of the account (the sandbox decides outcomes by them). */
  accountNumberLast4: string;
}

export interface PayoutState {
  status: PayoutStatus;
  providerReference?: string | null;
  feeMinor?: bigint | null;
  failureCode?: string | null;
  failureMessage?: string | null;
}

export interface ProviderBalance {
  currency: string;
  availableMinor: bigint;
}

export interface Provider {
  readonly name: ProviderName;
  readonly mode: Mode;
  readonly credentialSource: CredentialSource;
  /** The settlement account this adapter's credential moves money in (src/settlement.ts). */
  readonly account: string;
  /** The connected account requests go on behalf of (Stripe-Account `acct_…`); null for the key's own. */
  readonly connectedAccount: string | null;
  createPayment(p: PaymentRequest): Promise<PaymentState>;
  /**
   * The checkout of a provider that makes it without leaving the process (the sandbox): no request
   * can fail or must be retried, so payment.initiate writes it with the payment in one statement
   * instead of calling `createPayment` after the commit.
   */
  checkoutInProcess?(p: PaymentRequest): PaymentState;
  /** The payment's state now, at the provider. */
  paymentStatus(p: { id: string; amountMinor: bigint; providerReference: string | null }): Promise<PaymentState>;
  /** Resolves the holder's name and registers the recipient; throws GantryError when it cannot. */
  resolveAccount(a: AccountQuery): Promise<ResolvedAccount>;
  /** Sends payouts (one request when the provider has a bulk call); one state per request, in order. */
  sendPayouts(ps: PayoutRequest[]): Promise<PayoutState[]>;
  /**
   * The outcome of a payout a provider makes without leaving the process (the sandbox): nothing is
   * sent, so payout.send writes it with the payout and its reservation in one statement instead of
   * calling `sendPayouts` after the commit.
   */
  payoutInProcess?(p: PayoutRequest): PayoutState;
  payoutStatus(p: { id: string; providerReference: string | null; accountNumberLast4: string }): Promise<PayoutState>;
  /** The provider's own available balance per currency; null when there is none to compare (sandbox). */
  balance(): Promise<ProviderBalance[] | null>;
}
