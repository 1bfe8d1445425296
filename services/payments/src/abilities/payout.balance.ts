/**
 * @module payments/abilities/payout.balance
 * The tenant's balances per currency, computed from the double-entry ledger (available, pending,
 * reserved), and — when the payout provider is live — the provider's own available balance beside
 * it with whether they agree (`reconciled`).
 */
import { ability } from "../context.ts";
import { balances } from "../ledger.ts";
import { checkCurrency, moneyOut } from "../money.ts";
import { providerFor } from "../providers/index.ts";

export default ability("payout.balance", async (input, call, ctx) => {
  if (input.currency) checkCurrency(input.currency, "/input/currency");
  const provider = await providerFor(ctx, call, ctx.config.PAYMENTS_PAYOUT_PROVIDER);
  const ledger = await ctx.db.$transaction((tx) => balances(tx, call.tenant, input.currency));
  const external = await provider.balance();
  const currencies = new Set(ledger.keys());
  if (input.currency) currencies.add(input.currency);
  for (const b of external ?? []) if (!input.currency || b.currency === input.currency) currencies.add(b.currency);
  const asOf = new Date().toISOString();
  return {
    balances: [...currencies].sort().map((currency) => {
      const b = ledger.get(currency) ?? { available: 0n, pending: 0n, reserved: 0n };
      const theirs = external ? (external.find((x) => x.currency === currency)?.availableMinor ?? 0n) : null;
      return {
        currency,
        available: moneyOut(b.available, currency),
        pending: moneyOut(b.pending, currency),
        reserved: moneyOut(b.reserved, currency),
        provider: theirs === null ? null : moneyOut(theirs, currency),
        reconciled: theirs === null ? null : theirs === b.available,
      };
    }),
    mode: provider.mode,
    credentialSource: provider.credentialSource,
    asOf,
  };
});
