-- The closed sets of the run path's tables are domains instead of table CHECK constraints, as in
-- payments (20270115000000_check_domains there): Postgres reads a table's CHECK constraints back from
-- their stored text and plans them again at the start of every statement that writes the table,
-- while a domain's check is held parsed in the type cache (README, *The closed sets as domains*).
-- Same sets, same constraint names, same SQLSTATE (23514).
--
-- permits_used_check spans two columns (status and used_at), so it stays a table check.
--
-- Each domain is made without its check, so the column's type change is binary-compatible (no
-- rewrite; its indexes are kept), then the check is added to the domain, which validates every
-- existing row, and the table's own check is dropped.
--
-- A column of a domain reaches a client as its base type; an array of one does not (it has its own
-- array type): a query that builds an array of these columns casts them to text.
CREATE DOMAIN "permit_status" AS TEXT;
ALTER TABLE "permits" ALTER COLUMN "status" TYPE "permit_status";
ALTER DOMAIN "permit_status" ADD CONSTRAINT "permits_status_check" CHECK (VALUE IN ('issued', 'used'));
ALTER TABLE "permits" DROP CONSTRAINT "permits_status_check";

CREATE DOMAIN "receipt_outcome" AS TEXT;
ALTER TABLE "receipts" ALTER COLUMN "outcome" TYPE "receipt_outcome";
ALTER DOMAIN "receipt_outcome" ADD CONSTRAINT "receipts_outcome_check" CHECK (VALUE IN ('succeeded', 'failed'));
ALTER TABLE "receipts" DROP CONSTRAINT "receipts_outcome_check";
