-- A ledger line is known by its journal and its side. Every posting is one journal of one debit and
-- one credit line (src/ledger.ts `post`, src/payout-writes.ts `bookAndQueue`, and every writer
-- since 20261124000000_init), so (journal_id, debit) names each line once and refuses a journal
-- posted twice, whatever its accounts, as the unique journal key on debit lines
-- (20270109000000_journal_debit_key) did. It replaces both that key and the `id` primary key,
-- which nothing read: two index entries a line at most become one, and no sequence value is drawn
-- (scripts/cost-per-call.ts with WAL=1; README, *The ledger's key*). A journal with two lines on
-- one side is now refused too; none was ever written, and if one were here this migration fails
-- on the key instead of dropping a line.
ALTER TABLE "ledger_entries" ADD COLUMN "debit" BOOLEAN GENERATED ALWAYS AS ("amount_minor" > 0) STORED;
ALTER TABLE "ledger_entries" DROP COLUMN "id";
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_pkey" PRIMARY KEY ("journal_id", "debit");
DROP INDEX "ledger_entries_journal_debit_key";
