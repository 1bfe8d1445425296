-- payout.send's balance check inside its one statement (src/payout-writes.ts), so no client round
-- trip happens while the balance lock is held: takes the balance lock of a tenant, settlement
-- account and currency (the key src/ledger.ts `lockBalance` takes, so payout.batch and payout.send
-- exclude each other), then sums `available`. VOLATILE: in READ COMMITTED its query takes a new
-- snapshot after the lock is granted, so it sees every reservation committed before (the calling
-- statement's own snapshot predates the wait). The lock is held until that statement's transaction
-- ends. An amount beyond the balance is refused with an error, so the statement writes nothing.
CREATE FUNCTION "spendable"(p_tenant TEXT, p_account TEXT, p_currency TEXT, p_amount BIGINT) RETURNS BIGINT
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  available BIGINT;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('payments-balance:' || p_tenant || ':' || p_account || ':' || p_currency));
  SELECT COALESCE(SUM(amount_minor), 0) INTO available FROM "payments"."ledger_entries"
   WHERE tenant = p_tenant AND settlement_account = p_account AND currency = p_currency AND account = 'available';
  IF available < p_amount THEN
    RAISE EXCEPTION 'insufficient_balance' USING ERRCODE = 'P0001', DETAIL = available::text;
  END IF;
  RETURN available;
END $$;
