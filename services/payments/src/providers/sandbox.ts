/**
 * @module payments/providers/sandbox
 * The built-in sandbox provider: the default when a provider is not configured. No money moves and
 * nothing leaves the process; outcomes are deterministic so users can test failure on purpose
 * (README "Sandbox"):
 *
 * - payments stay `pending` at initiate and `succeeded` at the first status refresh, except amounts
 *   whose minor units end in `02` (`failed`, `card_declined`), `05` (`expired`) or `09` (stay
 *   `pending`: the payer never pays);
 * - account numbers ending in `0000` cannot be resolved; ending in `0001` the bank reports another
 *   holder name (`JANE SANDBOX`), so a given `accountName` mismatches;
 * - payouts are `paid` when sent, except to accounts ending in `0002` (`failed`, `account_closed`);
 *   those ending in `0003` are paid, then `reversed` at the next status refresh.
 */
import { GantryError } from "@gantry/kit";
import { accountOf } from "../settlement.ts";
import type {
  AccountQuery,
  CredentialSource,
  PaymentRequest,
  PaymentState,
  PayoutRequest,
  PayoutState,
  Provider,
  ProviderName,
} from "./types.ts";

function paymentOutcome(amountMinor: bigint): PaymentState {
  switch (amountMinor % 100n) {
    case 2n:
      return { status: "failed", failureCode: "card_declined", failureMessage: "The sandbox card was declined." };
    case 5n:
      return { status: "expired", failureCode: "link_expired", failureMessage: "The sandbox checkout expired unpaid." };
    case 9n:
      return { status: "pending" };
    default:
      return { status: "succeeded" };
  }
}

function payoutOutcome(last4: string): PayoutState {
  if (last4.endsWith("0002")) {
    return { status: "failed", failureCode: "account_closed", failureMessage: "The sandbox bank account is closed." };
  }
  return { status: "paid", feeMinor: 0n };
}

function sandboxCheckout(p: PaymentRequest): PaymentState {
  return {
    status: "pending",
    providerReference: `sandbox_${p.id}`,
    checkoutUrl: `https://sandbox.gantry.invalid/pay/${p.id}`,
    expiresAt: null,
  };
}

function sandboxPayout(p: PayoutRequest): PayoutState {
  return { ...payoutOutcome(p.accountNumberLast4), providerReference: `sandbox_${p.id}` };
}

export function sandboxProvider(name: ProviderName, credentialSource: CredentialSource = "platform"): Provider {
  return {
    name,
    mode: "sandbox",
    credentialSource,
    account: accountOf(name, "sandbox", credentialSource),
    connectedAccount: null,
    async createPayment(p) {
      return sandboxCheckout(p);
    },
    checkoutInProcess: sandboxCheckout,
    async paymentStatus(p) {
      return paymentOutcome(p.amountMinor);
    },
    async resolveAccount(a: AccountQuery) {
      if (a.accountNumber.endsWith("0000")) {
        throw new GantryError(
          "validation_failed",
          "accountNumber could not be resolved by the bank (sandbox: numbers ending in 0000 never resolve); check the number and bankCode.",
          {
            details: [
              {
                path: "/input/accountNumber",
                message: "/input/accountNumber names no account at this bank",
                code: "account_unresolved",
              },
            ],
          },
        );
      }
      const accountName = a.accountNumber.endsWith("0001")
        ? "JANE SANDBOX"
        : (a.accountName?.toUpperCase() ?? `SANDBOX HOLDER ${a.accountNumber.slice(-4)}`);
      return { accountName, bankName: a.bankCode ? `Sandbox Bank ${a.bankCode}` : null, providerReference: null };
    },
    async sendPayouts(ps: PayoutRequest[]) {
      return ps.map(sandboxPayout);
    },
    payoutInProcess: sandboxPayout,
    async payoutStatus(p) {
      if (p.accountNumberLast4.endsWith("0003")) return { status: "reversed" };
      return payoutOutcome(p.accountNumberLast4);
    },
    async balance() {
      return null;
    },
  };
}
