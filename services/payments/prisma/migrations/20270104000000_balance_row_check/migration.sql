-- No overdraft, checked on the balance row itself, as the last step of the statement that reserves.
--
-- Before, payout.send's statement took an advisory lock per tenant, settlement account and
-- currency (payments.spendable) before writing the payout, its journals and its event, and the
-- ledger's trigger then locked the balance row too: two locks for one balance, the first held across
-- the whole statement and its commit, so payouts of one balance ran one at a time for all of it.
--
-- Now the trigger that adds a statement's lines to their balance row (20270102000000_balances)
-- also refuses a reservation (a journal `<payout id>:reserved`, available → reserved) larger than
-- what was available before it. Its upsert works on the row's newest version, waiting for a
-- concurrent writer of that row to commit, so the check cannot see a stale balance; the row lock it
-- takes is the only lock on the balance, taken at the end of the statement and held to its commit.
-- Only reservations are checked: a provider's fee or a refund is a fact reported after the money
-- moved, and may still take `available` below zero (README, What remains).
CREATE OR REPLACE FUNCTION "ledger_balances_add"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  refused BIGINT;
BEGIN
  WITH lines AS (
    SELECT tenant, settlement_account, currency,
           COALESCE(SUM(amount_minor) FILTER (WHERE account = 'available'), 0) AS available,
           COALESCE(SUM(amount_minor) FILTER (WHERE account = 'pending'), 0) AS pending,
           COALESCE(SUM(amount_minor) FILTER (WHERE account = 'reserved'), 0) AS reserved,
           COALESCE(SUM(-amount_minor) FILTER (WHERE account = 'available' AND journal_id LIKE '%:reserved'), 0)
             AS reserving
      FROM new_lines
     WHERE account IN ('available', 'pending', 'reserved')
     GROUP BY tenant, settlement_account, currency),
  added AS (
    INSERT INTO "payments"."balances" AS b (tenant, settlement_account, currency, available, pending, reserved)
    SELECT tenant, settlement_account, currency, available, pending, reserved
      FROM lines
     ORDER BY tenant, settlement_account, currency
    ON CONFLICT (tenant, settlement_account, currency) DO UPDATE
       SET available = b.available + EXCLUDED.available,
           pending = b.pending + EXCLUDED.pending,
           reserved = b.reserved + EXCLUDED.reserved
    RETURNING b.tenant, b.settlement_account, b.currency, b.available)
  SELECT added.available - lines.available INTO refused
    FROM added JOIN lines USING (tenant, settlement_account, currency)
   WHERE lines.reserving > 0 AND added.available - lines.available < lines.reserving
   LIMIT 1;
  IF refused IS NOT NULL THEN
    -- What was available before this statement: src/payout-writes.ts `refusedBalance` reads it.
    RAISE EXCEPTION 'insufficient_balance' USING ERRCODE = 'P0001', DETAIL = refused::text;
  END IF;
  RETURN NULL;
END;
$$;

DROP FUNCTION "spendable"(TEXT, TEXT, TEXT, BIGINT);
