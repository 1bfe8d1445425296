/**
 * What a payout's ledger write costs Postgres in other shapes than the one it has (issue 30), before
 * anyone rebuilds the ledger for one: the four lines of a sandbox payout (`:reserved`, then `:paid`)
 * written by one INSERT, `N` times in a PL/pgSQL loop with a commit each, on the test stack's Postgres,
 * and the backend's CPU (from `/proc`) per INSERT. Shapes, swapped between windows and alternated:
 *
 * - `current`: the ledger as it is, its statement trigger `ledger_entries_added` (balance rows, journal
 *   check, reservation check);
 * - `no-journal-check`: the same trigger without the journal check (what a ledger balanced by
 *   construction would not need);
 * - `journal-rows`: one row per journal (debit account, credit account, amount), two rows a payout,
 *   and a trigger of the same balance upsert and reservation check, no journal check;
 * - `statement-upsert`: the four lines, no trigger, and the balance row's upsert and the reservation
 *   check as CTEs of the writing statement (the refusal raised by a function);
 * - `statement-upsert+check`: the same with a trigger that only checks the journals;
 * - `statement-upsert+checks`: the same with a trigger that checks the journals and, reading the
 *   balance row the statement updated, the reservation (the refusal left to the database alone);
 * - `row-upsert+check`: a row-level trigger (on the balance accounts' lines only) that adds its line
 *   to the balance row and refuses a reservation beyond what was available, beside a statement
 *   trigger that only checks the journals;
 * - `journal-rows+statement-upsert`: one row per journal and the upsert in the statement, no trigger;
 * - `no-trigger`: the four lines alone (the floor).
 *
 * Throwaway tables and functions only (`h_*`, `ledger_journals_h`); the service is not called. This
 * measures the statement's ledger part at one call at a time, not a whole payout.
 *
 * @example
 * N=3000 ROUNDS=4 node_modules/.bin/node services/payments/scripts/ledger-write-cost.ts
 */
import { readFileSync } from "node:fs";
import { startPayments } from "../src/test/helpers.ts";

const N = Number(process.env.N ?? 3000);
const ROUNDS = Number(process.env.ROUNDS ?? 4);
const t = await startPayments({ PAYMENTS_RESEND_SWEEP_SECONDS: "0" });
const c = await t.db.connect();
const q = (sql: string) => c.query(sql);

const CURRENT = (await q(`SELECT pg_get_functiondef('payments.ledger_lines_added'::regproc) AS d`)).rows[0].d as string;
const JOURNAL_CHECK =
  "(SELECT journal_id FROM new_lines GROUP BY journal_id, currency HAVING SUM(amount_minor) <> 0 LIMIT 1)";
if (!CURRENT.includes(JOURNAL_CHECK))
  throw new Error("ledger_lines_added no longer has the journal check this script removes");
const NO_JOURNAL_CHECK = CURRENT.replace(JOURNAL_CHECK, "NULL::text");

// The payout's lines as src/payout-writes.ts `bookAndQueue` binds them: arrays of one element a line.
const LINES = `unnest(ARRAY['reserved','reserved','paid','paid'], ARRAY['reserved','available','payouts_sent','reserved'],
  ARRAY[1,-1,1,-1]::bigint[], ARRAY['m','m','m','m']) AS line(suffix, account, amount, memo)`;
const JOURNALS = `unnest(ARRAY['reserved','paid'], ARRAY['reserved','payouts_sent']::payments.ledger_account[],
  ARRAY['available','reserved']::payments.ledger_account[], ARRAY[1,1]::bigint[], ARRAY['m','m']) AS j(suffix, debit, credit, amount, memo)`;
const INSERT_LINES = `INSERT INTO payments.ledger_entries
  (tenant, journal_id, account, settlement_account, currency, amount_minor, ref_type, ref_id, memo, created_at)
  SELECT 'h', 'po' || i || ':' || line.suffix, line.account, 'sa', 'USD', line.amount, 'payout', 'po' || i, line.memo, now()
    FROM ${LINES}`;
const INSERT_JOURNALS = `INSERT INTO payments.ledger_journals_h
  (tenant, journal_id, debit_account, credit_account, settlement_account, currency, amount_minor, ref_type, ref_id, memo, created_at)
  SELECT 'h', 'po' || i || ':' || j.suffix, j.debit, j.credit, 'sa', 'USD', j.amount, 'payout', 'po' || i, j.memo, now()
    FROM ${JOURNALS}`;
// The reservation's effect on the balance row (available -1), checked against what was available before.
const UPSERT = `bal AS (
  INSERT INTO payments.balances AS b (tenant, settlement_account, currency, available, pending, reserved)
  VALUES ('h', 'sa', 'USD', -1, 0, 0)
  ON CONFLICT (tenant, settlement_account, currency) DO UPDATE SET available = b.available + EXCLUDED.available
  RETURNING b.available)`;
const REFUSE =
  "SELECT CASE WHEN bal.available + 1 < 1 THEN payments.h_refuse(bal.available + 1) ELSE true END FROM bal INTO ok";

function loop(name: string, body: string): string {
  return `CREATE PROCEDURE payments.${name}(n int, first int) LANGUAGE plpgsql AS $$
    DECLARE ok boolean;
    BEGIN
      FOR i IN first..first + n - 1 LOOP
        ${body};
        COMMIT;
      END LOOP;
    END $$`;
}

await q(`INSERT INTO payments.balances VALUES ('h', 'sa', 'USD', 1000000000000, 0, 0)`);
await q(`CREATE TABLE payments.ledger_journals_h (
  tenant TEXT NOT NULL, journal_id TEXT NOT NULL PRIMARY KEY, debit_account payments.ledger_account NOT NULL,
  credit_account payments.ledger_account NOT NULL, settlement_account TEXT NOT NULL, currency TEXT NOT NULL,
  amount_minor BIGINT NOT NULL CHECK (amount_minor > 0), ref_type TEXT NOT NULL, ref_id TEXT NOT NULL,
  memo TEXT NOT NULL, created_at TIMESTAMPTZ(3) NOT NULL, CHECK (debit_account <> credit_account))`);
// The balance upsert and reservation check of ledger_lines_added, over journals instead of lines.
await q(`CREATE FUNCTION payments.h_journals_added() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE refused BIGINT;
BEGIN
  WITH lines AS (
    SELECT tenant, settlement_account, currency,
           SUM(CASE WHEN debit_account = 'available' THEN amount_minor WHEN credit_account = 'available' THEN -amount_minor ELSE 0 END) AS available,
           SUM(CASE WHEN debit_account = 'pending' THEN amount_minor WHEN credit_account = 'pending' THEN -amount_minor ELSE 0 END) AS pending,
           SUM(CASE WHEN debit_account = 'reserved' THEN amount_minor WHEN credit_account = 'reserved' THEN -amount_minor ELSE 0 END) AS reserved,
           COALESCE(SUM(amount_minor) FILTER (WHERE credit_account = 'available' AND journal_id LIKE '%:reserved'), 0) AS reserving
      FROM new_journals
     WHERE debit_account IN ('available', 'pending', 'reserved') OR credit_account IN ('available', 'pending', 'reserved')
     GROUP BY tenant, settlement_account, currency),
  added AS (
    INSERT INTO payments.balances AS b (tenant, settlement_account, currency, available, pending, reserved)
    SELECT tenant, settlement_account, currency, available, pending, reserved FROM lines
     ORDER BY tenant, settlement_account, currency
    ON CONFLICT (tenant, settlement_account, currency) DO UPDATE
       SET available = b.available + EXCLUDED.available, pending = b.pending + EXCLUDED.pending,
           reserved = b.reserved + EXCLUDED.reserved
    RETURNING b.tenant, b.settlement_account, b.currency, b.available)
  SELECT added.available - lines.available FROM added JOIN lines USING (tenant, settlement_account, currency)
   WHERE lines.reserving > 0 AND added.available - lines.available < lines.reserving LIMIT 1 INTO refused;
  IF refused IS NOT NULL THEN
    RAISE EXCEPTION 'insufficient_balance' USING ERRCODE = 'P0001', DETAIL = refused::text;
  END IF;
  RETURN NULL;
END $$`);
await q(`CREATE FUNCTION payments.h_journal_check() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE unbalanced TEXT;
BEGIN
  SELECT journal_id FROM new_lines GROUP BY journal_id, currency HAVING SUM(amount_minor) <> 0 LIMIT 1 INTO unbalanced;
  IF unbalanced IS NOT NULL THEN
    RAISE EXCEPTION 'ledger journal % does not balance', unbalanced USING ERRCODE = '23514';
  END IF;
  RETURN NULL;
END $$`);
await q(`CREATE FUNCTION payments.h_checks() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  unbalanced TEXT;
  refused BIGINT;
BEGIN
  SELECT (SELECT journal_id FROM new_lines GROUP BY journal_id, currency HAVING SUM(amount_minor) <> 0 LIMIT 1),
         (SELECT b.available - l.available
            FROM (SELECT tenant, settlement_account, currency, SUM(amount_minor) AS available,
                         COALESCE(SUM(-amount_minor) FILTER (WHERE journal_id LIKE '%:reserved'), 0) AS reserving
                    FROM new_lines WHERE account = 'available' GROUP BY tenant, settlement_account, currency) l
            JOIN payments.balances b USING (tenant, settlement_account, currency)
           WHERE l.reserving > 0 AND b.available - l.available < l.reserving LIMIT 1)
    INTO unbalanced, refused;
  IF unbalanced IS NOT NULL THEN
    RAISE EXCEPTION 'ledger journal % does not balance', unbalanced USING ERRCODE = '23514';
  END IF;
  IF refused IS NOT NULL THEN
    RAISE EXCEPTION 'insufficient_balance' USING ERRCODE = 'P0001', DETAIL = refused::text;
  END IF;
  RETURN NULL;
END $$`);
await q(`CREATE FUNCTION payments.h_line_added() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE after BIGINT;
BEGIN
  INSERT INTO payments.balances AS b (tenant, settlement_account, currency, available, pending, reserved)
  VALUES (NEW.tenant, NEW.settlement_account, NEW.currency,
          CASE WHEN NEW.account = 'available' THEN NEW.amount_minor ELSE 0 END,
          CASE WHEN NEW.account = 'pending' THEN NEW.amount_minor ELSE 0 END,
          CASE WHEN NEW.account = 'reserved' THEN NEW.amount_minor ELSE 0 END)
  ON CONFLICT (tenant, settlement_account, currency) DO UPDATE
     SET available = b.available + EXCLUDED.available, pending = b.pending + EXCLUDED.pending,
         reserved = b.reserved + EXCLUDED.reserved
  RETURNING b.available INTO after;
  IF NEW.account = 'available' AND NEW.journal_id LIKE '%:reserved' AND after < 0 THEN
    RAISE EXCEPTION 'insufficient_balance' USING ERRCODE = 'P0001', DETAIL = (after - NEW.amount_minor)::text;
  END IF;
  RETURN NULL;
END $$`);
await q(`CREATE FUNCTION payments.h_refuse(before BIGINT) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'insufficient_balance' USING ERRCODE = 'P0001', DETAIL = before::text;
END $$`);
await q(loop("h_lines", INSERT_LINES));
await q(loop("h_journals", INSERT_JOURNALS));
await q(loop("h_lines_upsert", `WITH ${UPSERT}, booked AS (${INSERT_LINES}) ${REFUSE}`));
await q(loop("h_journals_upsert", `WITH ${UPSERT}, booked AS (${INSERT_JOURNALS}) ${REFUSE}`));

/** The ledger's statement trigger calls `fn`, or there is none. */
async function ledgerTrigger(fn: string | null): Promise<void> {
  await q(`DROP TRIGGER IF EXISTS ledger_entries_added ON payments.ledger_entries`);
  if (fn)
    await q(`CREATE TRIGGER ledger_entries_added AFTER INSERT ON payments.ledger_entries
      REFERENCING NEW TABLE AS new_lines FOR EACH STATEMENT EXECUTE FUNCTION payments.${fn}()`);
}
async function lineTrigger(on: boolean): Promise<void> {
  await q("DROP TRIGGER IF EXISTS h_line_added ON payments.ledger_entries");
  if (on)
    await q(`CREATE TRIGGER h_line_added AFTER INSERT ON payments.ledger_entries FOR EACH ROW
      WHEN (NEW.account IN ('available', 'pending', 'reserved')) EXECUTE FUNCTION payments.h_line_added()`);
}
async function journalTrigger(on: boolean): Promise<void> {
  await q(`DROP TRIGGER IF EXISTS h_journals_added ON payments.ledger_journals_h`);
  if (on)
    await q(`CREATE TRIGGER h_journals_added AFTER INSERT ON payments.ledger_journals_h
      REFERENCING NEW TABLE AS new_journals FOR EACH STATEMENT EXECUTE FUNCTION payments.h_journals_added()`);
}

/** Each shape: set the triggers up, name the loop that writes. */
const shapes: Record<string, () => Promise<string>> = {
  current: async () => {
    await q(CURRENT);
    await ledgerTrigger("ledger_lines_added");
    return "h_lines";
  },
  "no-journal-check": async () => {
    await q(NO_JOURNAL_CHECK);
    await ledgerTrigger("ledger_lines_added");
    return "h_lines";
  },
  "journal-rows": async () => {
    await journalTrigger(true);
    return "h_journals";
  },
  "statement-upsert": async () => {
    await ledgerTrigger(null);
    return "h_lines_upsert";
  },
  "statement-upsert+check": async () => {
    await ledgerTrigger("h_journal_check");
    return "h_lines_upsert";
  },
  "statement-upsert+checks": async () => {
    await ledgerTrigger("h_checks");
    return "h_lines_upsert";
  },
  "row-upsert+check": async () => {
    await ledgerTrigger("h_journal_check");
    await lineTrigger(true);
    return "h_lines";
  },
  "journal-rows+statement-upsert": async () => {
    await journalTrigger(false);
    return "h_journals_upsert";
  },
  "no-trigger": async () => {
    await ledgerTrigger(null);
    return "h_lines";
  },
};

const pid = (await q("SELECT pg_backend_pid() AS p")).rows[0].p as number;
function backendCpuUs(): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

const names = Object.keys(shapes);
const figures = new Map<string, number[]>();
let next = 0;
for (let round = 0; round < ROUNDS; round++) {
  for (const name of round % 2 ? [...names].reverse() : names) {
    await lineTrigger(false);
    const proc = await shapes[name]();
    await q(`CALL payments.${proc}(300, ${next})`);
    next += 300;
    const before = backendCpuUs();
    await q(`CALL payments.${proc}(${N}, ${next})`);
    next += N;
    figures.set(name, [...(figures.get(name) ?? []), Math.round((backendCpuUs() - before) / N)]);
  }
}
for (const [name, us] of figures)
  console.log(`${name}: ${us.join(" / ")} µs of Postgres an INSERT (a payout's ledger write)`);
c.release();
await t.stop();
