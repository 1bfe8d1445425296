-- Balances per settlement account (security issue 27, item 2). Money is booked in the account it
-- settled in: the platform's provider account, the tenant's own account (its own key, or its
-- connected account `acct_…`), a destination / subaccount named by recipientId, or the sandbox.
-- Payouts draw only on the account they are sent from, so money that never reached the platform
-- can no longer be paid out of it.
--
-- Keys: `sandbox` | `sandbox:<recipientId>` | `<provider>:platform` | `<provider>:tenant` |
-- `<provider>:<account id>` (a connected account or subaccount).
ALTER TABLE "payments" ADD COLUMN "settlement_account" TEXT;
-- The connected account the provider's object lives on (Stripe-Account); null on the platform's own.
ALTER TABLE "payments" ADD COLUMN "provider_account" TEXT;
ALTER TABLE "payouts" ADD COLUMN "settlement_account" TEXT;
ALTER TABLE "payouts" ADD COLUMN "provider_account" TEXT;
ALTER TABLE "ledger_entries" ADD COLUMN "settlement_account" TEXT;

-- Earlier rows: which connected account a tenant credential used was not recorded, so money taken
-- on a tenant's own account is booked to `<provider>:tenant` (never to the platform).
UPDATE "payments" SET "settlement_account" = CASE
    WHEN "mode" = 'sandbox' AND "recipient_id" IS NOT NULL THEN 'sandbox:' || "recipient_id"
    WHEN "mode" = 'sandbox' THEN 'sandbox'
    WHEN "recipient_id" IS NOT NULL THEN "provider" || ':' || "recipient_id"
    WHEN "credential_source" = 'tenant' THEN "provider" || ':tenant'
    ELSE "provider" || ':platform' END;
UPDATE "payouts" SET "settlement_account" = CASE
    WHEN "mode" = 'sandbox' THEN 'sandbox'
    WHEN "credential_source" = 'tenant' THEN "provider" || ':tenant'
    ELSE "provider" || ':platform' END;
-- The ledger is append-only (a trigger refuses UPDATE): it is lifted for this one backfill, which
-- changes no amount. Journals are still checked, at once, so no check is left pending when the
-- table is altered below (Postgres refuses to alter a table with pending trigger events).
SET CONSTRAINTS "ledger_entries_balanced" IMMEDIATE;
ALTER TABLE "ledger_entries" DISABLE TRIGGER "ledger_entries_append_only";
UPDATE "ledger_entries" e SET "settlement_account" = COALESCE(
    (SELECT p."settlement_account" FROM "payments" p WHERE e."ref_type" = 'payment' AND p."id" = e."ref_id"),
    (SELECT o."settlement_account" FROM "payouts" o WHERE e."ref_type" = 'payout' AND o."id" = e."ref_id"),
    'sandbox');
ALTER TABLE "ledger_entries" ENABLE TRIGGER "ledger_entries_append_only";

ALTER TABLE "payments" ALTER COLUMN "settlement_account" SET NOT NULL;
ALTER TABLE "payouts" ALTER COLUMN "settlement_account" SET NOT NULL;
ALTER TABLE "ledger_entries" ALTER COLUMN "settlement_account" SET NOT NULL;

DROP INDEX "ledger_entries_tenant_currency_account_idx";
CREATE INDEX "ledger_entries_tenant_settlement_account_currency_account_idx" ON "ledger_entries"("tenant", "settlement_account", "currency", "account");
