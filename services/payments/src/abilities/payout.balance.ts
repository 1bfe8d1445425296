/**
 * @module payments/abilities/payout.balance
 * The tenant's balances per settlement account and currency (src/settlement.ts): the sums of the
 * double-entry ledger (available, pending, reserved) its trigger keeps in one row each. Payouts are sent from one of them — the payout
 * provider's account for the credential in use (`payoutSource`) — and spend only its `available`;
 * money that settled elsewhere (the tenant's own account, a destination, the sandbox) is shown where
 * it is. When the payout provider is live, its own available balance stands beside that account's
 * with whether they agree (`reconciled`).
 */
import { ability } from "../context.ts";
import { type Balances, balanceKey, balances } from "../ledger.ts";
import { checkCurrency, moneyOut } from "@gantry/kit/money.ts";
import { providerFor } from "../providers/index.ts";
import { holderOf } from "../settlement.ts";

export default ability("payout.balance", async (input, call, ctx) => {
  if (input.currency) checkCurrency(input.currency, "/input/currency");
  const provider = await providerFor(ctx, call, ctx.config.PAYMENTS_PAYOUT_PROVIDER);
  const ledger = await ctx.db.$transaction((tx) => balances(tx, call.tenant, { currency: input.currency }));
  const external = await provider.balance();
  // The account payouts are sent from is listed in every currency shown, so what can be paid out is
  // never left to be inferred from an absent entry.
  const currencies = new Set([...ledger.values()].map((b) => b.currency));
  if (input.currency) currencies.add(input.currency);
  for (const b of external ?? []) if (!input.currency || b.currency === input.currency) currencies.add(b.currency);
  const entries = new Map<string, { settlementAccount: string; currency: string } & Balances>(ledger);
  for (const currency of currencies) {
    const key = balanceKey(provider.account, currency);
    if (!entries.has(key))
      entries.set(key, { settlementAccount: provider.account, currency, available: 0n, pending: 0n, reserved: 0n });
  }
  const asOf = new Date().toISOString();
  const keyOf = (b: { settlementAccount: string; currency: string }) => balanceKey(b.settlementAccount, b.currency);
  const order = (a: { settlementAccount: string; currency: string }, b: typeof a) =>
    keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0;
  return {
    balances: [...entries.values()].sort(order).map((b) => {
      const source = b.settlementAccount === provider.account;
      const theirs =
        source && external ? (external.find((x) => x.currency === b.currency)?.availableMinor ?? 0n) : null;
      return {
        settlement: { id: b.settlementAccount, holder: holderOf(b.settlementAccount) },
        payoutSource: source,
        currency: b.currency,
        available: moneyOut(b.available, b.currency),
        pending: moneyOut(b.pending, b.currency),
        reserved: moneyOut(b.reserved, b.currency),
        provider: theirs === null ? null : moneyOut(theirs, b.currency),
        reconciled: theirs === null ? null : theirs === b.available,
      };
    }),
    mode: provider.mode,
    credentialSource: provider.credentialSource,
    asOf,
  };
});
