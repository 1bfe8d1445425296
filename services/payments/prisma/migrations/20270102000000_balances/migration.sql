-- The balances a payout is checked against, kept in one row per tenant, settlement account and
-- currency by the database itself, so reading one costs the same however long the ledger grows
-- (payments.spendable summed every `available` line of the tenant, under the balance lock).
--
-- A statement-level trigger on ledger_entries adds each statement's lines to their row: one upsert
-- per (tenant, settlement account, currency) a statement touches, in key order. A journal never
-- crosses settlement accounts or currencies, so almost every transaction touches one row; the only
-- one that touches several (a payout.batch in several currencies) holds their balance locks first,
-- taken in the same order. The ledger is append-only (its trigger refuses UPDATE and DELETE), so
-- INSERT is the only change to follow. Only the accounts a balance shows are kept.
CREATE TABLE "balances" (
    "tenant" TEXT NOT NULL,
    "settlement_account" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "available" BIGINT NOT NULL DEFAULT 0,
    "pending" BIGINT NOT NULL DEFAULT 0,
    "reserved" BIGINT NOT NULL DEFAULT 0,
    CONSTRAINT "balances_pkey" PRIMARY KEY ("tenant", "settlement_account", "currency")
);

CREATE FUNCTION "ledger_balances_add"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "payments"."balances" AS b (tenant, settlement_account, currency, available, pending, reserved)
  SELECT tenant, settlement_account, currency,
         COALESCE(SUM(amount_minor) FILTER (WHERE account = 'available'), 0),
         COALESCE(SUM(amount_minor) FILTER (WHERE account = 'pending'), 0),
         COALESCE(SUM(amount_minor) FILTER (WHERE account = 'reserved'), 0)
    FROM new_lines
   WHERE account IN ('available', 'pending', 'reserved')
   GROUP BY tenant, settlement_account, currency
   ORDER BY tenant, settlement_account, currency
  ON CONFLICT (tenant, settlement_account, currency) DO UPDATE
     SET available = b.available + EXCLUDED.available,
         pending = b.pending + EXCLUDED.pending,
         reserved = b.reserved + EXCLUDED.reserved;
  RETURN NULL;
END;
$$;
CREATE TRIGGER "ledger_entries_balances" AFTER INSERT ON "ledger_entries"
    REFERENCING NEW TABLE AS new_lines FOR EACH STATEMENT EXECUTE FUNCTION "ledger_balances_add"();

-- The ledger written so far (the migration runs in system scope; the trigger follows from here).
INSERT INTO "balances" (tenant, settlement_account, currency, available, pending, reserved)
SELECT tenant, settlement_account, currency,
       COALESCE(SUM(amount_minor) FILTER (WHERE account = 'available'), 0),
       COALESCE(SUM(amount_minor) FILTER (WHERE account = 'pending'), 0),
       COALESCE(SUM(amount_minor) FILTER (WHERE account = 'reserved'), 0)
  FROM "ledger_entries"
 WHERE account IN ('available', 'pending', 'reserved')
 GROUP BY tenant, settlement_account, currency;

-- payout.send's check (src/payout-writes.ts) reads the row instead of summing the ledger. Still
-- VOLATILE: its read takes a new snapshot after the lock is granted, so it sees every reservation
-- committed before.
CREATE OR REPLACE FUNCTION "spendable"(p_tenant TEXT, p_account TEXT, p_currency TEXT, p_amount BIGINT) RETURNS BIGINT
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  held BIGINT;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('payments-balance:' || p_tenant || ':' || p_account || ':' || p_currency));
  SELECT available INTO held FROM "payments"."balances"
   WHERE tenant = p_tenant AND settlement_account = p_account AND currency = p_currency;
  held := COALESCE(held, 0);
  IF held < p_amount THEN
    RAISE EXCEPTION 'insufficient_balance' USING ERRCODE = 'P0001', DETAIL = held::text;
  END IF;
  RETURN held;
END $$;
