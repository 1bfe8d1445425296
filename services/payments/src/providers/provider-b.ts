/**
 * @module payments/providers/provider-b
 * provider_b: Paystack's API over HTTPS (base URL configurable; tests run a local server speaking
 * its documented formats). Every response is `{status: boolean, message, data}`; amounts are in the
 * currency's minor unit (kobo, pesewas). Our record id is the `reference` of every transaction and
 * transfer, which Paystack keeps unique: a retried send cannot pay twice.
 *
 * - payments: `POST /transaction/initialize` (email, amount, currency, reference, callback_url,
 *   subaccount), `GET /transaction/verify/:reference`;
 * - accounts: `GET /bank/resolve?account_number&bank_code`, then `POST /transferrecipient`;
 * - payouts: `POST /transfer` (one) or `POST /transfer/bulk` (a batch), `GET /transfer/verify/:reference`;
 * - balance: `GET /balance`.
 *
 * Status mapping (Paystack → ours): transaction `abandoned` → pending, `ongoing` / `pending` /
 * `processing` / `queued` → processing, `success` → succeeded, `failed` → failed, `reversed` →
 * refunded; transfer `pending` / `received` / `processing` / `queued` / `otp` → processing,
 * `success` → paid, `failed` / `rejected` / `blocked` / `abandoned` → failed, `reversed` → reversed.
 */
import { GantryError } from "@gantry/kit";
import { accountOf } from "../settlement.ts";
import { providerRefused, providerUnreachable } from "./errors.ts";
import type { ProviderOptions } from "./provider-a.ts";
import type { PaymentState, PaymentStatus, PayoutState, PayoutStatus, Provider } from "./types.ts";

interface Envelope<T> {
  status: boolean;
  message: string;
  data: T;
}

const TX_STATUS: Record<string, PaymentStatus> = {
  abandoned: "pending",
  ongoing: "processing",
  pending: "processing",
  processing: "processing",
  queued: "processing",
  success: "succeeded",
  failed: "failed",
  reversed: "refunded",
};

const TRANSFER_STATUS: Record<string, PayoutStatus> = {
  pending: "processing",
  received: "processing",
  processing: "processing",
  queued: "processing",
  otp: "processing",
  success: "paid",
  failed: "failed",
  rejected: "failed",
  blocked: "failed",
  abandoned: "failed",
  reversed: "reversed",
};

export function transactionStatus(s: string): PaymentStatus {
  return TX_STATUS[s] ?? "processing";
}

export function transferStatus(s: string): PayoutStatus {
  return TRANSFER_STATUS[s] ?? "processing";
}

/** Recipient type by country (Paystack: nuban Nigeria, ghipss Ghana, basa South Africa). */
const RECIPIENT_TYPE: Record<string, string> = { NG: "nuban", GH: "ghipss", ZA: "basa" };

interface Transfer {
  reference: string;
  status: string;
  transfer_code?: string;
  fee_charged?: number;
  failures?: unknown;
  reason?: string;
}

function transferState(t: Transfer): PayoutState {
  const status = transferStatus(t.status);
  return {
    status,
    providerReference: t.transfer_code ?? t.reference,
    ...(typeof t.fee_charged === "number" ? { feeMinor: BigInt(t.fee_charged) } : {}),
    ...(status === "failed"
      ? { failureCode: `transfer_${t.status}`, failureMessage: `The transfer was ${t.status}.` }
      : {}),
  };
}

export function paystackProvider(o: ProviderOptions): Provider {
  const base = o.baseUrl.replace(/(?<!\/)\/+$/, "");
  async function request<T>(
    what: string,
    method: "GET" | "POST",
    path: string,
    body?: unknown,
  ): Promise<{ http: number; env: Envelope<T> }> {
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${o.secretKey}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(o.timeoutMs),
        redirect: "error",
      });
    } catch (err) {
      throw providerUnreachable("provider_b", err);
    }
    let env: Envelope<T>;
    try {
      env = (await res.json()) as Envelope<T>;
    } catch (err) {
      throw providerRefused("provider_b", what, res.status, err);
    }
    return { http: res.status, env };
  }
  async function ok<T>(what: string, method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
    const { http, env } = await request<T>(what, method, path, body);
    if (http >= 300 || !env?.status) throw providerRefused("provider_b", what, http, env?.message);
    return env.data;
  }
  return {
    name: "provider_b",
    mode: "live",
    credentialSource: o.credentialSource,
    account: accountOf("provider_b", "live", o.credentialSource),
    connectedAccount: null,
    async createPayment(p) {
      const data = await ok<{ authorization_url: string; reference: string }>(
        "initialize the transaction",
        "POST",
        "/transaction/initialize",
        {
          email: p.customerEmail,
          amount: Number(p.amountMinor),
          currency: p.currency,
          reference: p.id,
          ...(p.callbackUrl ? { callback_url: p.callbackUrl } : {}),
          ...(p.recipientId ? { subaccount: p.recipientId } : {}),
          metadata: { gantry_payment_id: p.id, ...(p.description ? { description: p.description } : {}) },
        },
      );
      return { status: "pending", providerReference: data.reference, checkoutUrl: data.authorization_url };
    },
    async paymentStatus(p) {
      const data = await ok<{ status: string; gateway_response?: string }>(
        "verify the transaction",
        "GET",
        `/transaction/verify/${encodeURIComponent(p.providerReference ?? p.id)}`,
      );
      const status = transactionStatus(data.status);
      const out: PaymentState = { status };
      if (status === "failed") {
        out.failureCode = "charge_failed";
        out.failureMessage = data.gateway_response ?? "The charge failed.";
      }
      return out;
    },
    async resolveAccount(a) {
      const query = new URLSearchParams({ account_number: a.accountNumber, bank_code: a.bankCode ?? "" });
      const { http, env } = await request<{ account_name: string }>(
        "resolve the account",
        "GET",
        `/bank/resolve?${query}`,
      );
      if (http === 422 || http === 400 || (http < 300 && !env?.status)) {
        throw new GantryError(
          "validation_failed",
          "accountNumber could not be resolved by the bank; check the number and bankCode.",
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
      if (http >= 300 || !env?.status) throw providerRefused("provider_b", "resolve the account", http, env?.message);
      const accountName = env.data.account_name;
      const recipient = await ok<{ recipient_code: string; details?: { bank_name?: string | null } }>(
        "register the transfer recipient",
        "POST",
        "/transferrecipient",
        {
          type: RECIPIENT_TYPE[a.country] ?? "nuban",
          name: accountName,
          account_number: a.accountNumber,
          bank_code: a.bankCode,
          currency: a.currency,
        },
      );
      return {
        accountName,
        bankName: recipient.details?.bank_name ?? null,
        providerReference: recipient.recipient_code,
      };
    },
    async sendPayouts(ps) {
      if (ps.length === 1) {
        const p = ps[0];
        const t = await ok<Transfer>("create the transfer", "POST", "/transfer", {
          source: "balance",
          amount: Number(p.amountMinor),
          currency: p.currency,
          recipient: p.recipientReference,
          reference: p.id,
          ...(p.description ? { reason: p.description } : {}),
        });
        return [transferState({ ...t, reference: t.reference ?? p.id })];
      }
      // Bulk transfers are per currency.
      const out = new Map<string, PayoutState>();
      for (const currency of [...new Set(ps.map((p) => p.currency))]) {
        const group = ps.filter((p) => p.currency === currency);
        const data = await ok<Transfer[]>("create the bulk transfer", "POST", "/transfer/bulk", {
          source: "balance",
          currency,
          transfers: group.map((p) => ({
            amount: Number(p.amountMinor),
            recipient: p.recipientReference,
            reference: p.id,
            ...(p.description ? { reason: p.description } : {}),
          })),
        });
        for (const t of data) out.set(t.reference, transferState(t));
      }
      // An item the provider did not list was not accepted: it stays processing until verified.
      return ps.map((p) => out.get(p.id) ?? { status: "processing" as const });
    },
    async payoutStatus(p) {
      const t = await ok<Transfer>("verify the transfer", "GET", `/transfer/verify/${encodeURIComponent(p.id)}`);
      return transferState({ ...t, reference: t.reference ?? p.id });
    },
    async balance() {
      const data = await ok<{ currency: string; balance: number }[]>("read the balance", "GET", "/balance");
      return data.map((b) => ({ currency: b.currency, availableMinor: BigInt(b.balance) }));
    },
  };
}
