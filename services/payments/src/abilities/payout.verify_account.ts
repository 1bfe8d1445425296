/**
 * @module payments/abilities/payout.verify_account
 * Resolves a bank account's holder name through the payout provider (PAYMENTS_PAYOUT_PROVIDER) and
 * registers the account as a payout recipient. Verifying the same account again (same provider,
 * mode and currency) returns the same recipient, refreshed. The full account number is only passed
 * to the provider, never stored or returned (src/accounts.ts).
 */
import { isUniqueViolation } from "@gantry/kit";
import { accountFingerprint, DEVELOPMENT_FINGERPRINT_KEY } from "../accounts.ts";
import { ability } from "../context.ts";
import { newId } from "../ids.ts";
import { checkCurrency } from "@gantry/kit/money.ts";
import { providerFor } from "../providers/index.ts";
import { recipientOut } from "../records.ts";

export default ability("payout.verify_account", async (input, call, ctx) => {
  checkCurrency(input.currency, "/input/currency");
  const provider = await providerFor(ctx, call, ctx.config.PAYMENTS_PAYOUT_PROVIDER);
  const query = {
    country: input.country,
    currency: input.currency,
    accountNumber: input.accountNumber,
    bankCode: input.bankCode ?? null,
    accountName: input.accountName ?? null,
  };
  const resolved = await provider.resolveAccount(query);
  const fingerprint = accountFingerprint(ctx.config.PAYMENTS_FINGERPRINT_KEY ?? DEVELOPMENT_FINGERPRINT_KEY, query);
  const at = new Date();
  const fields = {
    credentialSource: provider.credentialSource,
    accountName: resolved.accountName,
    accountNumberLast4: input.accountNumber.slice(-4),
    bankCode: input.bankCode ?? null,
    bankName: resolved.bankName,
    country: input.country,
    providerReference: resolved.providerReference,
    verifiedAt: at,
  };
  const key = {
    tenant: call.tenant,
    provider: provider.name,
    mode: provider.mode,
    currency: input.currency,
    accountFingerprint: fingerprint,
  };
  const upsert = () =>
    ctx.db.recipient.upsert({
      where: { tenant_provider_mode_currency_accountFingerprint: key },
      update: fields,
      create: { id: newId("recipient"), ...key, ...fields, createdAt: at },
    });
  // Two first verifications at once: the loser finds the winner's row.
  const recipient = await upsert().catch((err) => (isUniqueViolation(err) ? upsert() : Promise.reject(err)));
  return recipientOut(recipient, input.accountName ?? null, resolved.nameConfirmed !== false);
});
