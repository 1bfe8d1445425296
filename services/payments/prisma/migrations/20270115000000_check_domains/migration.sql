-- The closed sets of the hot tables are domains instead of table CHECK constraints. Postgres reads a
-- table's CHECK constraints back from their stored text (stringToNode) and plans them again at the
-- start of every statement that writes the table, and an IN list is a constant array read byte by
-- byte: on the test stack that was ~5% of Postgres's CPU a payout (perf), and ~25 us of each INSERT
-- into the ledger against ~8 us as a domain, whose check the type cache holds parsed (README,
-- *The closed sets as domains*). Same sets, same constraint names, same SQLSTATE (23514).
--
-- Each domain is made without its check, so the column's type change is binary-compatible (no
-- rewrite; its indexes are kept), then the check is added to the domain, which validates every
-- existing row, and the table's own check is dropped.
--
-- A column of a domain reaches a client as its base type; an array of one does not (it has its own
-- array type), so a query that builds an array of these columns casts them (src/payouts.ts `deriveBatch`).
CREATE DOMAIN "ledger_account" AS TEXT;
ALTER TABLE "ledger_entries" ALTER COLUMN "account" TYPE "ledger_account";
ALTER DOMAIN "ledger_account" ADD CONSTRAINT "ledger_entries_account_check"
    CHECK (VALUE IN ('available', 'pending', 'reserved', 'customer_payments', 'fees', 'payouts_sent', 'refunds'));
ALTER TABLE "ledger_entries" DROP CONSTRAINT "ledger_entries_account_check";

CREATE DOMAIN "payout_status" AS TEXT;
ALTER TABLE "payouts" ALTER COLUMN "status" TYPE "payout_status";
ALTER DOMAIN "payout_status" ADD CONSTRAINT "payouts_status_check"
    CHECK (VALUE IN ('pending', 'processing', 'paid', 'failed', 'cancelled', 'reversed'));
ALTER TABLE "payouts" DROP CONSTRAINT "payouts_status_check";

CREATE DOMAIN "payment_status" AS TEXT;
ALTER TABLE "payments" ALTER COLUMN "status" TYPE "payment_status";
ALTER DOMAIN "payment_status" ADD CONSTRAINT "payments_status_check"
    CHECK (VALUE IN ('pending', 'processing', 'succeeded', 'failed', 'cancelled', 'expired', 'refunded'));
ALTER TABLE "payments" DROP CONSTRAINT "payments_status_check";

CREATE DOMAIN "payment_event_source" AS TEXT;
ALTER TABLE "payment_events" ALTER COLUMN "source" TYPE "payment_event_source";
ALTER DOMAIN "payment_event_source" ADD CONSTRAINT "payment_events_source_check"
    CHECK (VALUE IN ('api', 'webhook', 'poll'));
ALTER TABLE "payment_events" DROP CONSTRAINT "payment_events_source_check";
