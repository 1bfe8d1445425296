-- The ledger is one row per journal: the account debited, the account credited and the amount
-- moved, instead of a debit line and a credit line. A journal balances by construction: both sides
-- are NOT NULL, the amount is positive (domain `ledger_amount`) and the two sides differ (CHECK), so
-- the statement trigger's journal check goes, and a payout writes two rows and two key entries
-- instead of four (README, *One row per journal*).
--
-- Kept as they were: the balance rows are still kept by the database's statement trigger for any
-- INSERT (`ledger_journals_added`, the upsert of `ledger_lines_added` read over journals), which
-- still refuses a reservation beyond what was available with `insufficient_balance` (P0001, DETAIL
-- what was available: src/payout-writes.ts `refusedBalance`); a journal posts once (the primary
-- key); the ledger is append-only (no UPDATE, no DELETE).
--
-- Readers of lines keep their answers: `ledger_entries` is now a view that makes each journal its
-- two lines (the debit side's account and amount, the credit side's and the amount negated), with
-- the old table's columns in their order; `debit` is still `amount_minor > 0`. It runs as its
-- caller (security_invoker), so the journals' row-level security applies to whoever reads it.
CREATE DOMAIN "ledger_amount" AS BIGINT;
ALTER DOMAIN "ledger_amount" ADD CONSTRAINT "ledger_journals_amount_check" CHECK (VALUE > 0);

CREATE TABLE "ledger_journals" (
    "tenant" TEXT NOT NULL,
    "journal_id" TEXT NOT NULL,
    "debit_account" "ledger_account" NOT NULL,
    "credit_account" "ledger_account" NOT NULL,
    "settlement_account" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "amount_minor" "ledger_amount" NOT NULL,
    "ref_type" TEXT NOT NULL,
    "ref_id" TEXT NOT NULL,
    "memo" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "ledger_journals_pkey" PRIMARY KEY ("journal_id"),
    CONSTRAINT "ledger_journals_sides_check" CHECK ("debit_account" <> "credit_account")
);

-- Each journal's two lines become its row. The old key (journal_id, debit) held at most one line a
-- side; a line without its other side, or a pair that disagrees on anything but the account and the
-- amount's sign, is not paired, and then the count below fails the migration rather than lose it.
INSERT INTO "ledger_journals" (tenant, journal_id, debit_account, credit_account, settlement_account, currency,
                               amount_minor, ref_type, ref_id, memo, created_at)
SELECT d.tenant, d.journal_id, d.account, c.account, d.settlement_account, d.currency, d.amount_minor,
       d.ref_type, d.ref_id, d.memo, d.created_at
  FROM "ledger_entries" d
  JOIN "ledger_entries" c
    ON c.journal_id = d.journal_id AND NOT c.debit AND c.amount_minor = -d.amount_minor
   AND c.tenant = d.tenant AND c.settlement_account = d.settlement_account AND c.currency = d.currency
   AND c.ref_type = d.ref_type AND c.ref_id = d.ref_id AND c.memo = d.memo AND c.created_at = d.created_at
 WHERE d.debit;
DO $$
DECLARE
  lines BIGINT := (SELECT count(*) FROM "ledger_entries");
  journals BIGINT := (SELECT count(*) FROM "ledger_journals");
BEGIN
  IF lines <> 2 * journals THEN
    RAISE EXCEPTION 'ledger: % lines do not pair into % journals', lines, journals;
  END IF;
END $$;

-- The lines' table goes with its triggers and policy; its functions are replaced or reused.
DROP TABLE "ledger_entries";
DROP FUNCTION "ledger_lines_added"();

CREATE VIEW "ledger_entries" WITH (security_invoker = true) AS
  SELECT tenant, journal_id, debit_account AS account, currency, amount_minor::BIGINT AS amount_minor, ref_type,
         ref_id, memo, created_at, settlement_account, true AS debit
    FROM "ledger_journals"
  UNION ALL
  SELECT tenant, journal_id, credit_account, currency, -amount_minor::BIGINT, ref_type, ref_id, memo, created_at,
         settlement_account, false
    FROM "ledger_journals";

CREATE TRIGGER "ledger_journals_append_only" BEFORE UPDATE OR DELETE ON "ledger_journals"
    FOR EACH ROW EXECUTE FUNCTION "ledger_append_only"();

-- The INSERT's journals added to their balance rows (on each row's newest version, so the
-- reservation check cannot see a stale balance), then a reservation (a `:reserved` journal's move out
-- of `available`) beyond what was available before the statement refused; the refusal is an error,
-- so the balance rows' update rolls back with the journals.
CREATE FUNCTION "ledger_journals_added"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  refused BIGINT;
BEGIN
  WITH lines AS (
    SELECT tenant, settlement_account, currency,
           SUM(CASE WHEN debit_account = 'available' THEN amount_minor
                    WHEN credit_account = 'available' THEN -amount_minor ELSE 0 END) AS available,
           SUM(CASE WHEN debit_account = 'pending' THEN amount_minor
                    WHEN credit_account = 'pending' THEN -amount_minor ELSE 0 END) AS pending,
           SUM(CASE WHEN debit_account = 'reserved' THEN amount_minor
                    WHEN credit_account = 'reserved' THEN -amount_minor ELSE 0 END) AS reserved,
           COALESCE(SUM(CASE WHEN credit_account = 'available' THEN amount_minor ELSE -amount_minor END)
                      FILTER (WHERE 'available' IN (debit_account, credit_account) AND journal_id LIKE '%:reserved'), 0)
             AS reserving
      FROM new_journals
     WHERE debit_account IN ('available', 'pending', 'reserved') OR credit_account IN ('available', 'pending', 'reserved')
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
  SELECT added.available - lines.available
    FROM added JOIN lines USING (tenant, settlement_account, currency)
   WHERE lines.reserving > 0 AND added.available - lines.available < lines.reserving
   LIMIT 1
    INTO refused;
  IF refused IS NOT NULL THEN
    -- What was available before this statement: src/payout-writes.ts `refusedBalance` reads it.
    RAISE EXCEPTION 'insufficient_balance' USING ERRCODE = 'P0001', DETAIL = refused::text;
  END IF;
  RETURN NULL;
END;
$$;
CREATE TRIGGER "ledger_journals_added" AFTER INSERT ON "ledger_journals"
    REFERENCING NEW TABLE AS new_journals FOR EACH STATEMENT EXECUTE FUNCTION "ledger_journals_added"();
