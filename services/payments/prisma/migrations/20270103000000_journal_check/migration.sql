-- Double entry checked once per statement instead of once per ledger line. The deferred row trigger
-- of the first migration ran, at commit, one SUM over the journal of each line written (four for a
-- payout accepted and paid in one statement), while the payout's balance lock was held.
--
-- Every writer posts a journal's lines in one INSERT (src/ledger.ts `post`, src/payout-writes.ts),
-- and the ledger is append-only (its trigger refuses UPDATE and DELETE), so a journal's sum is the
-- sum of what each INSERT added to it: when every INSERT's lines balance per journal and currency,
-- every journal does. This trigger refuses an INSERT whose lines do not, at the end of that statement,
-- so an unbalanced journal still never commits, and a journal split over two statements is refused.
DROP TRIGGER "ledger_entries_balanced" ON "ledger_entries";
DROP FUNCTION "ledger_journal_balanced"();

CREATE FUNCTION "ledger_statement_balanced"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  unbalanced TEXT;
BEGIN
  SELECT journal_id INTO unbalanced FROM new_lines
   GROUP BY journal_id, currency HAVING SUM(amount_minor) <> 0 LIMIT 1;
  IF unbalanced IS NOT NULL THEN
    RAISE EXCEPTION 'ledger journal % does not balance', unbalanced USING ERRCODE = '23514';
  END IF;
  RETURN NULL;
END;
$$;
CREATE TRIGGER "ledger_entries_balanced" AFTER INSERT ON "ledger_entries"
    REFERENCING NEW TABLE AS new_lines FOR EACH STATEMENT EXECUTE FUNCTION "ledger_statement_balanced"();
