-- The ledger's two statement triggers are one. `ledger_entries_balanced` (20270103000000_journal_check:
-- every journal an INSERT writes balances per currency) and `ledger_entries_balances`
-- (20270102000000_balances, 20270104000000_balance_row_check: the lines added to their balance row,
-- a reservation beyond what was available refused) each cost a trigger call of its own on every
-- INSERT into the ledger, and the call, not its query, was most of the cost: on the test stack,
-- 1,200 payouts at 16 at once, Postgres spent ~85 us a payout on the journal check alone against
-- ~270 on the balance trigger alone, and ~335 on both (README, *One trigger for the ledger*).
--
-- Both checks hold as before, in one statement of one function: the INSERT's lines added to their
-- balance rows (on each row's newest version, so the reservation check cannot see a stale balance),
-- then a journal that does not balance refused, then a reservation beyond what was available. A
-- refusal is an error, so the balance rows' update rolls back with the lines. An unbalanced INSERT
-- is still refused with the same code and message, and before the overdraft it may also be.
CREATE FUNCTION "ledger_lines_added"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  unbalanced TEXT;
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
  SELECT (SELECT journal_id FROM new_lines GROUP BY journal_id, currency HAVING SUM(amount_minor) <> 0 LIMIT 1),
         (SELECT added.available - lines.available
            FROM added JOIN lines USING (tenant, settlement_account, currency)
           WHERE lines.reserving > 0 AND added.available - lines.available < lines.reserving
           LIMIT 1)
    INTO unbalanced, refused;
  IF unbalanced IS NOT NULL THEN
    RAISE EXCEPTION 'ledger journal % does not balance', unbalanced USING ERRCODE = '23514';
  END IF;
  IF refused IS NOT NULL THEN
    -- What was available before this statement: src/payout-writes.ts `refusedBalance` reads it.
    RAISE EXCEPTION 'insufficient_balance' USING ERRCODE = 'P0001', DETAIL = refused::text;
  END IF;
  RETURN NULL;
END;
$$;

DROP TRIGGER "ledger_entries_balanced" ON "ledger_entries";
DROP TRIGGER "ledger_entries_balances" ON "ledger_entries";
DROP FUNCTION "ledger_statement_balanced"();
DROP FUNCTION "ledger_balances_add"();
CREATE TRIGGER "ledger_entries_added" AFTER INSERT ON "ledger_entries"
    REFERENCING NEW TABLE AS new_lines FOR EACH STATEMENT EXECUTE FUNCTION "ledger_lines_added"();
