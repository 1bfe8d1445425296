-- A journal posts once, held by its debit line alone. Every posting of a journal is one INSERT of
-- lines that sum to zero (migration 20270103000000_journal_check) and no line is zero, so every
-- posting has a positive (debit) line: a unique journal_id among positive lines refuses a second
-- posting of the same journal, whatever its accounts, as (journal_id, account, currency) did for
-- the same accounts. It takes an entry for half the lines, with a shorter key: two entries instead
-- of four per sandbox payout (scripts/cost-per-call.ts with WAL=1). The existence checks of the
-- service ask for the debit line (`amount_minor > 0`), so they plan on it (src/ledger.ts).
CREATE UNIQUE INDEX "ledger_entries_journal_debit_key" ON "ledger_entries"("journal_id") WHERE "amount_minor" > 0;
DROP INDEX "ledger_entries_journal_account_key";
