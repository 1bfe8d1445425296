/**
 * What a payout's ledger write costs Postgres in other shapes than the one it has (issue 30): the
 * ledger of a sandbox payout (`:reserved`, then `:paid`) written by one INSERT, `N` times in a
 * PL/pgSQL loop with a commit each, on the test stack's Postgres, and the backend's CPU (from
 * `/proc`) per INSERT. Measured first before the ledger became one row per journal (migration
 * 20270116000000_ledger_journals), and kept to compare the shapes since. Shapes, swapped between
 * windows and alternated:
 *
 * - `journal-rows`: the ledger as it is, one row per journal (debit account, credit account,
 *   amount), two rows a payout, and its statement trigger `ledger_journals_added` (balance rows,
 *   reservation check);
 * - `journal-rows+book-function`: the journals and their balance row written by one call of a
 *   SECURITY DEFINER function owned by the schema's owner (`h_book_journals`, a candidate, not
 *   built: README *The ledger booked by one function*), the trigger disabled, and a restrictive
 *   policy letting journals in only as the owner, so the service's login could write the ledger
 *   through the function only;
 * - `journal-rows+payout-statement`, `journal-rows+book-function+payout-statement`: the same two,
 *   written as CTEs of a statement shaped like a payout's (src/payout-writes.ts `bookAndQueue`);
 * - `lines`: the ledger as it was before, four lines a payout in a table of the old shape
 *   (`ledger_lines_h`: key (journal, side)) and the old statement trigger `ledger_lines_added`
 *   (balance rows, journal check, reservation check), its text read from migration
 *   20270113000000_ledger_one_trigger;
 * - `no-journal-check`: the same lines and trigger without the journal check (what a ledger
 *   balanced by construction does not need);
 * - `statement-upsert`: the four lines, no trigger, and the balance row's upsert and the reservation
 *   check as CTEs of the writing statement (the refusal raised by a function);
 * - `statement-upsert+check`: the same with a trigger that only checks the journals;
 * - `statement-upsert+checks`: the same with a trigger that checks the journals and, reading the
 *   balance row the statement updated, the reservation (the refusal left to the database alone);
 * - `row-upsert+check`: a row-level trigger (on the balance accounts' lines only) that adds its line
 *   to the balance row and refuses a reservation beyond what was available, beside a statement
 *   trigger that only checks the journals;
 * - `journal-rows+statement-upsert`: one row per journal and the upsert in the statement, no trigger
 *   (balance rows would then follow the ledger because each writer says so);
 * - `no-trigger`: the four lines alone (the floor);
 * - `journal-rows+row-upsert`: one row per journal, the statement trigger replaced by a row-level
 *   AFTER INSERT trigger: one upsert of the journal's balance row (both sides are in the same row)
 *   and the refusal of a reservation that leaves `available` below zero;
 * - `journal-rows+row-update`: the same, an UPDATE of the balance row and an INSERT only when there
 *   is none.
 *
 * Throwaway tables and functions (`h_*`, `ledger_lines_h`) and the test stack's own ledger
 * (tenant `h`); the service is not called. The `journal-rows` shapes run as the service's login
 * (`gantry_payments`), under the row-level security it runs under; the lines' shapes run as the
 * superuser on a throwaway table without it (compare them with each other). This measures the
 * statement's ledger part at one call at a time, not a whole payout.
 *
 * @example
 * N=3000 ROUNDS=4 node_modules/.bin/node services/payments/scripts/ledger-write-cost.ts
 * SHAPES=journal-rows,journal-rows+row-upsert N=3000 ROUNDS=4 node_modules/.bin/node services/payments/scripts/ledger-write-cost.ts
 */
import { readFileSync } from "node:fs";
import { schemaRoleNames } from "@gantry/kit/postgres-roles.ts";
import { startPayments } from "../src/test/helpers.ts";

const N = Number(process.env.N ?? 3000);
const ROUNDS = Number(process.env.ROUNDS ?? 4);
const t = await startPayments({ PAYMENTS_RESEND_SWEEP_SECONDS: "0" });
const c = await t.db.connect();
const q = (sql: string) => c.query(sql);

// The lines' trigger as migration 20270113000000_ledger_one_trigger made it, on the throwaway lines table.
const OLD_TRIGGER = readFileSync(
  new URL("../prisma/migrations/20270113000000_ledger_one_trigger/migration.sql", import.meta.url),
  "utf8",
);
const CURRENT = /CREATE FUNCTION "ledger_lines_added"\(\)[\s\S]*?\n\$\$;/
  .exec(OLD_TRIGGER)?.[0]
  .replace('CREATE FUNCTION "ledger_lines_added"', "CREATE OR REPLACE FUNCTION payments.h_lines_added");
if (!CURRENT) throw new Error("migration 20270113000000_ledger_one_trigger no longer holds ledger_lines_added");
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
const INSERT_LINES = `INSERT INTO payments.ledger_lines_h
  (tenant, journal_id, account, settlement_account, currency, amount_minor, ref_type, ref_id, memo, created_at)
  SELECT 'h', 'po' || i || ':' || line.suffix, line.account, 'sa', 'USD', line.amount, 'payout', 'po' || i, line.memo, now()
    FROM ${LINES}`;
const INSERT_JOURNALS = `INSERT INTO payments.ledger_journals
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

// `journal-rows+book-function`'s function (tenant scope check, balance deltas summed in a loop over
// the journals, one statement inserting the journals and upserting the balance row, the refusal).
const BOOK_JOURNALS = `CREATE FUNCTION payments.h_book_journals(
  for_tenant TEXT, in_account TEXT, in_currency TEXT, of_type TEXT, of_id TEXT, booked_at TIMESTAMPTZ,
  id_prefix TEXT, names TEXT[], debits TEXT[], credits TEXT[], amounts BIGINT[], memos TEXT[]
) RETURNS INTEGER LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $f$
DECLARE
  journals INTEGER := coalesce(cardinality(names), 0);
  touches BOOLEAN := false;
  moved_available BIGINT := 0;
  moved_pending BIGINT := 0;
  moved_reserved BIGINT := 0;
  reserving BIGINT := 0;
  available_after BIGINT;
BEGIN
  -- Row-level security holds the owner's writes to the caller's tenant scope; an owner that bypasses
  -- it (a superuser login, whose service connections switch to \`gantry_service\`: kit/src/tenancy.ts)
  -- would not be held, so the scope is checked here as well, as the kit's \`tenant_isolation\` states it.
  IF (for_tenant = current_setting('gantry.tenant', true)
      OR starts_with(for_tenant, current_setting('gantry.tenant', true) || '/')
      OR current_setting('gantry.system', true) = 'on') IS NOT TRUE THEN
    RAISE EXCEPTION 'book_journals: tenant % is outside the caller''s scope', for_tenant USING ERRCODE = '42501';
  END IF;
  -- A reservation is a \`:reserved\` journal's move out of \`available\` (back into it counts against).
  FOR k IN 1 .. journals LOOP
    CASE debits[k]
      WHEN 'available' THEN
        moved_available := moved_available + amounts[k];
        touches := true;
        IF id_prefix || names[k] LIKE '%:reserved' THEN reserving := reserving - amounts[k]; END IF;
      WHEN 'pending' THEN moved_pending := moved_pending + amounts[k]; touches := true;
      WHEN 'reserved' THEN moved_reserved := moved_reserved + amounts[k]; touches := true;
      ELSE NULL;
    END CASE;
    CASE credits[k]
      WHEN 'available' THEN
        moved_available := moved_available - amounts[k];
        touches := true;
        IF id_prefix || names[k] LIKE '%:reserved' THEN reserving := reserving + amounts[k]; END IF;
      WHEN 'pending' THEN moved_pending := moved_pending - amounts[k]; touches := true;
      WHEN 'reserved' THEN moved_reserved := moved_reserved - amounts[k]; touches := true;
      ELSE NULL;
    END CASE;
  END LOOP;
  WITH booked AS (
    INSERT INTO "payments"."ledger_journals" (tenant, journal_id, debit_account, credit_account, settlement_account,
                                              currency, amount_minor, ref_type, ref_id, memo, created_at)
    SELECT for_tenant, id_prefix || j.name, j.debit, j.credit, in_account, in_currency, j.amount, of_type, of_id,
           j.memo, booked_at
      FROM unnest(names, debits, credits, amounts, memos) AS j(name, debit, credit, amount, memo))
  INSERT INTO "payments"."balances" AS b (tenant, settlement_account, currency, available, pending, reserved)
  SELECT for_tenant, in_account, in_currency, moved_available, moved_pending, moved_reserved WHERE touches
  ON CONFLICT (tenant, settlement_account, currency) DO UPDATE
     SET available = b.available + EXCLUDED.available,
         pending = b.pending + EXCLUDED.pending,
         reserved = b.reserved + EXCLUDED.reserved
  RETURNING b.available INTO available_after;
  IF reserving > 0 AND available_after - moved_available < reserving THEN
    -- What was available before these journals: src/payout-writes.ts \`refusedBalance\` reads it.
    RAISE EXCEPTION 'insufficient_balance' USING ERRCODE = 'P0001', DETAIL = (available_after - moved_available)::text;
  END IF;
  RETURN journals;
END;
$f$`;

await q(`INSERT INTO payments.balances VALUES ('h', 'sa', 'USD', 1000000000000, 0, 0)`);
// h_book_journals runs as the ledger's owner, held to row-level security: it writes the scope's tenant only.
await q("SELECT set_config('gantry.tenant', 'h', false)");
// The ledger's lines table as it was before migration 20270116000000_ledger_journals.
await q(`CREATE TABLE payments.ledger_lines_h (
  tenant TEXT NOT NULL, journal_id TEXT NOT NULL, account payments.ledger_account NOT NULL, currency TEXT NOT NULL,
  amount_minor BIGINT NOT NULL CHECK (amount_minor <> 0), ref_type TEXT NOT NULL, ref_id TEXT NOT NULL,
  memo TEXT NOT NULL, created_at TIMESTAMPTZ(3) NOT NULL, settlement_account TEXT NOT NULL,
  debit BOOLEAN GENERATED ALWAYS AS (amount_minor > 0) STORED, PRIMARY KEY (journal_id, debit))`);
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
// One journal's move of the balance row: both sides are booked in the same row.
const JOURNAL_DELTAS = ["available", "pending", "reserved"].map(
  (a) => `CASE WHEN NEW.debit_account = '${a}' THEN NEW.amount_minor
    WHEN NEW.credit_account = '${a}' THEN -NEW.amount_minor ELSE 0 END`,
);
const JOURNAL_REFUSE = `IF NEW.credit_account = 'available' AND NEW.journal_id LIKE '%:reserved' AND after < 0 THEN
    RAISE EXCEPTION 'insufficient_balance' USING ERRCODE = 'P0001', DETAIL = (after + NEW.amount_minor)::text;
  END IF;`;
const JOURNAL_UPSERT = `INSERT INTO payments.balances AS b (tenant, settlement_account, currency, available, pending, reserved)
  VALUES (NEW.tenant, NEW.settlement_account, NEW.currency, ${JOURNAL_DELTAS.join(", ")})
  ON CONFLICT (tenant, settlement_account, currency) DO UPDATE
     SET available = b.available + EXCLUDED.available, pending = b.pending + EXCLUDED.pending,
         reserved = b.reserved + EXCLUDED.reserved
  RETURNING b.available INTO after`;
await q(`CREATE FUNCTION payments.h_journal_upsert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE after BIGINT;
BEGIN
  ${JOURNAL_UPSERT};
  ${JOURNAL_REFUSE}
  RETURN NULL;
END $$`);
await q(`CREATE FUNCTION payments.h_journal_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE after BIGINT;
BEGIN
  UPDATE payments.balances SET available = available + ${JOURNAL_DELTAS[0]}, pending = pending + ${JOURNAL_DELTAS[1]},
         reserved = reserved + ${JOURNAL_DELTAS[2]}
   WHERE tenant = NEW.tenant AND settlement_account = NEW.settlement_account AND currency = NEW.currency
  RETURNING available INTO after;
  IF NOT FOUND THEN
    ${JOURNAL_UPSERT};
  END IF;
  ${JOURNAL_REFUSE}
  RETURN NULL;
END $$`);
// The candidate: the journals and their balance row written together by a function that runs as
// the schema's owner (under the tenant policy, forced for the owner too), and a restrictive policy
// letting journals in only as the owner. The service's login could then write the ledger through the
// function only (a privilege would not hold: the roles' provisioning grants INSERT again at each start).
const { owner: OWNER, service: SERVICE } = schemaRoleNames("payments");
await q(BOOK_JOURNALS);
await q(`ALTER FUNCTION payments.h_book_journals OWNER TO ${OWNER}`);
await q(`CREATE POLICY h_journals_booked ON payments.ledger_journals AS RESTRICTIVE FOR INSERT WITH CHECK (true)`);
await q(`CREATE FUNCTION payments.h_refuse(before BIGINT) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'insufficient_balance' USING ERRCODE = 'P0001', DETAIL = before::text;
END $$`);
await q(loop("h_lines", INSERT_LINES));
await q(loop("h_journals", INSERT_JOURNALS));
await q(loop("h_lines_upsert", `WITH ${UPSERT}, booked AS (${INSERT_LINES}) ${REFUSE}`));
await q(loop("h_journals_upsert", `WITH ${UPSERT}, booked AS (${INSERT_JOURNALS}) ${REFUSE}`));
// The same two writes as CTEs of a statement like a payout's (src/payout-writes.ts `bookAndQueue`):
// the journals read from a CTE standing for the payout written, the function's result joined by the
// statement's last SELECT.
const SOURCE = `source AS (SELECT 'h' AS tenant, 'po' || i AS id, 'sa' AS "settlementAccount", 'USD' AS currency, now() AS "updatedAt")`;
await q(
  loop(
    "h_journals_cte",
    `WITH ${SOURCE}, booked AS (
       INSERT INTO payments.ledger_journals
         (tenant, journal_id, debit_account, credit_account, settlement_account, currency, amount_minor, ref_type, ref_id, memo, created_at)
       SELECT tenant, id || ':' || j.suffix, j.debit, j.credit, "settlementAccount", currency, j.amount, 'payout', id, j.memo, "updatedAt"
         FROM source CROSS JOIN ${JOURNALS})
     SELECT true FROM source INTO ok`,
  ),
);
await q(
  loop(
    "h_journals_book_cte",
    `WITH ${SOURCE}, booked AS (
       SELECT payments.h_book_journals(tenant, "settlementAccount", currency, 'payout', id, "updatedAt", id || ':',
         ARRAY['reserved','paid'], ARRAY['reserved','payouts_sent'], ARRAY['available','reserved'], ARRAY[1,1]::bigint[],
         ARRAY['m','m']) AS journals
         FROM source)
     SELECT true FROM source, booked INTO ok`,
  ),
);
await q(
  loop(
    "h_journals_book",
    `PERFORM payments.h_book_journals('h', 'sa', 'USD', 'payout', 'po' || i, now(), 'po' || i || ':', ARRAY['reserved','paid'],
       ARRAY['reserved','payouts_sent'], ARRAY['available','reserved'], ARRAY[1,1]::bigint[], ARRAY['m','m'])`,
  ),
);

/** The ledger's statement trigger calls `fn`, or there is none. */
async function ledgerTrigger(fn: string | null): Promise<void> {
  await q(`DROP TRIGGER IF EXISTS h_lines_added ON payments.ledger_lines_h`);
  if (fn)
    await q(`CREATE TRIGGER h_lines_added AFTER INSERT ON payments.ledger_lines_h
      REFERENCING NEW TABLE AS new_lines FOR EACH STATEMENT EXECUTE FUNCTION payments.${fn}()`);
}
async function lineTrigger(on: boolean): Promise<void> {
  await q("DROP TRIGGER IF EXISTS h_line_added ON payments.ledger_lines_h");
  if (on)
    await q(`CREATE TRIGGER h_line_added AFTER INSERT ON payments.ledger_lines_h FOR EACH ROW
      WHEN (NEW.account IN ('available', 'pending', 'reserved')) EXECUTE FUNCTION payments.h_line_added()`);
}
async function journalTrigger(on: boolean): Promise<void> {
  await q(`ALTER TABLE payments.ledger_journals ${on ? "ENABLE" : "DISABLE"} TRIGGER ledger_journals_added`);
}
/** A row-level trigger on the journals calls `fn`, or there is none. */
async function journalRowTrigger(fn: string | null): Promise<void> {
  await q("DROP TRIGGER IF EXISTS h_journal_added ON payments.ledger_journals");
  if (fn)
    await q(`CREATE TRIGGER h_journal_added AFTER INSERT ON payments.ledger_journals FOR EACH ROW
      WHEN (NEW.debit_account IN ('available', 'pending', 'reserved') OR NEW.credit_account IN ('available', 'pending', 'reserved'))
      EXECUTE FUNCTION payments.${fn}()`);
}

/** Each shape: set the triggers up, name the loop that writes. */
const shapes: Record<string, () => Promise<string>> = {
  "journal-rows": async () => "h_journals",
  lines: async () => {
    await q(CURRENT);
    await ledgerTrigger("h_lines_added");
    return "h_lines";
  },
  "no-journal-check": async () => {
    await q(NO_JOURNAL_CHECK);
    await ledgerTrigger("h_lines_added");
    return "h_lines";
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
  "journal-rows+row-upsert": async () => {
    await journalTrigger(false);
    await journalRowTrigger("h_journal_upsert");
    return "h_journals";
  },
  "journal-rows+row-update": async () => {
    await journalTrigger(false);
    await journalRowTrigger("h_journal_update");
    return "h_journals";
  },
  "journal-rows+book-function": async () => {
    await journalTrigger(false);
    return "h_journals_book";
  },
  "journal-rows+payout-statement": async () => {
    await journalTrigger(true);
    return "h_journals_cte";
  },
  "journal-rows+book-function+payout-statement": async () => {
    await journalTrigger(false);
    return "h_journals_book_cte";
  },
};

const pid = (await q("SELECT pg_backend_pid() AS p")).rows[0].p as number;
function backendCpuUs(): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

// The journal shapes write the real journals as the service's login does, under row-level security
// (tenant `h` in scope), as the candidate function does inside as the owner: the superuser this
// script connects as would skip the policies. The candidate's restrictive policy holds only while
// the function's shapes run.
const asService = (name: string) => name.startsWith("journal-rows");
async function bookedPolicy(on: boolean): Promise<void> {
  await q(
    `ALTER POLICY h_journals_booked ON payments.ledger_journals WITH CHECK (${on ? `current_user = '${OWNER}'` : "true"})`,
  );
}

// SHAPES=a,b measures those shapes only.
const names = process.env.SHAPES?.split(",") ?? Object.keys(shapes);
for (const name of names) if (!shapes[name]) throw new Error(`no shape ${name}: ${Object.keys(shapes).join(", ")}`);
const figures = new Map<string, number[]>();
let next = 0;
for (let round = 0; round < ROUNDS; round++) {
  for (const name of round % 2 ? [...names].reverse() : names) {
    await lineTrigger(false);
    await journalRowTrigger(null);
    await journalTrigger(true);
    const proc = await shapes[name]();
    await bookedPolicy(proc.startsWith("h_journals_book"));
    if (asService(name)) await q(`SET ROLE ${SERVICE}`);
    await q(`CALL payments.${proc}(300, ${next})`);
    next += 300;
    const before = backendCpuUs();
    await q(`CALL payments.${proc}(${N}, ${next})`);
    next += N;
    await q("RESET ROLE");
    figures.set(name, [...(figures.get(name) ?? []), Math.round((backendCpuUs() - before) / N)]);
  }
}
for (const [name, us] of figures)
  console.log(`${name}: ${us.join(" / ")} µs of Postgres an INSERT (a payout's ledger write)`);
await journalRowTrigger(null);
await journalTrigger(true);
await q("DROP POLICY h_journals_booked ON payments.ledger_journals");
c.release();
await t.stop();
