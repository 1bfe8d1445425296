/**
 * @module payments/settlement
 * Settlement accounts: where money actually is. A payment is booked in the account its funds
 * settle in and a payout spends only the balance of the account it is sent from, so money that
 * never reached the platform's account can never be paid out of it (security issue 27, item 2).
 *
 * Keys (stored on payments, payouts and every ledger line):
 * - `sandbox`: all sandbox money (nothing real; it pays sandbox payouts only);
 * - `<provider>:platform`: the platform's own provider account (its key, no destination);
 * - `<provider>:tenant`: the tenant's own provider account, reached by its own secret key;
 * - `<provider>:<account id>`: the tenant's connected account (`acct_…`, a direct charge) or the
 *   destination / subaccount a `recipientId` routed the funds to (always the tenant's own: see
 *   `ownedRecipient`);
 * - `sandbox:<recipientId>`: a sandbox payment routed to a recipientId.
 */
import { type CallContext, GantryError } from "@gantry/kit";
import type { Context } from "./context.ts";
import type { CredentialSource, Mode, Provider, ProviderName } from "./providers/types.ts";

/** The account a provider adapter moves money in (its credential's account). */
export function accountOf(name: ProviderName, mode: Mode, source: CredentialSource, connected?: string): string {
  if (mode === "sandbox") return "sandbox";
  if (connected) return `${name}:${connected}`;
  return `${name}:${source === "tenant" ? "tenant" : "platform"}`;
}

/** Where a payment's funds settle: the recipientId's account when it names one, else the adapter's. */
export function paymentAccount(provider: Provider, recipientId: string | null): string {
  if (!recipientId || recipientId === provider.connectedAccount) return provider.account;
  return provider.mode === "sandbox" ? `sandbox:${recipientId}` : `${provider.name}:${recipientId}`;
}

/** Who holds an account: the platform (and the sandbox) or the tenant. */
export function holderOf(account: string): "platform" | "tenant" {
  return account === "sandbox" || account.endsWith(":platform") ? "platform" : "tenant";
}

/**
 * A recipientId routes a payment's funds to another account, so it must be the tenant's own: the
 * account named by its own connection for this provider (its connected account `acct_…`, its
 * subaccount `ACCT_…`). Nothing else is accepted — a caller-chosen id could route a payment into
 * anyone's account — and without the connections service there is nothing to check it against.
 */
export async function ownedRecipient(
  ctx: Pick<Context, "resolver">,
  call: Pick<CallContext, "tenant" | "requestId">,
  provider: ProviderName,
  recipientId: string,
): Promise<void> {
  let own = "";
  if (ctx.resolver) {
    try {
      const c = await ctx.resolver.resolve(call.tenant, provider, call.requestId);
      if (c.credential_source === "tenant") own = c.external_ref;
    } catch (err) {
      if (!(err instanceof GantryError && err.code === "not_found")) {
        throw new GantryError(
          "unavailable",
          "recipientId could not be checked against your connection; retry shortly.",
          {
            reason: "The connections service did not answer the credential lookup.",
            cause: err,
          },
        );
      }
    }
  }
  if (own && own === recipientId) return;
  throw new GantryError(
    "not_found",
    `/input/recipientId ${recipientId} is not an account of this tenant: it must be the account of your own ${provider} connection${own ? ` (${own})` : " (you have none; connect one with connection.authorize)"}, or omit recipientId to be paid into your ${provider} balance.`,
    {
      details: [
        {
          path: "/input/recipientId",
          message: `/input/recipientId names no ${provider} account connected by this tenant`,
          code: "record_not_found",
        },
      ],
    },
  );
}
