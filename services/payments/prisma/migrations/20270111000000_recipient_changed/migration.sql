-- payout.send accepts a payout on a recipient this process read earlier (src/recipient-cache.ts),
-- so its one statement checks that the recipient row still holds every value the payout was built
-- from (src/payout-writes.ts `acceptPayout`). When it does not (re-verified on another replica,
-- changed, deleted), nothing of the statement may stay: its first CTE has already claimed the
-- idempotency key. A raise ends the statement, so the key, the payout and its journals all roll
-- back, and the call reads the recipient afresh. Plain SQL cannot raise, hence this function; it
-- is called only when the check fails, and names the recipient for the log.
CREATE FUNCTION "recipient_changed"(recipient TEXT) RETURNS BOOLEAN LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'recipient_changed' USING ERRCODE = 'P0001', DETAIL = recipient;
END;
$$;
