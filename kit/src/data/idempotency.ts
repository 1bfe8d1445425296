/**
 * @module kit/data/idempotency
 * `idempotencyKey` on create-like abilities, with Stripe's semantics, for every service:
 *
 * - scope: (tenant, ability, key); the same key in another tenant or ability is another key;
 * - same key + same input (canonical JSON without the key, after schema defaults) → the first
 *   result again (`created: false`; the call is marked replayed (`kit/src/call-outcome.ts`), which
 *   the gateway reports with the response header `Idempotent-Replayed: true`);
 * - same key + different input → 409 `conflict` whose details name every differing field;
 * - concurrent first uses → one execution: the idempotency row is inserted first, in the same
 *   transaction as the record, under the primary key (tenant, ability, key). Postgres makes the
 *   second insert wait for the first transaction and then fail with a unique violation; the loser
 *   rolls back (its record with it) and answers with the winner's result;
 * - retention: rows are kept `IDEMPOTENCY_RETENTION_DAYS` (30) days; `sweepIdempotency` deletes
 *   older ones (the kit runs it hourly for services that have the table), after which a key may be
 *   used again.
 *
 * The table is the kit's: a service that offers idempotency says so in kit/src/topology.ts
 * (`idempotency: true`), and the kit's migration runner creates it in the service's schema after the
 * service's own migrations (`IDEMPOTENCY_TABLE_SQL`; a tenant table, so row-level security applies).
 * The service declares the `IdempotencyRecord` model in its schema.prisma (the schema-vs-SQL test
 * checks it like any other table); its migrations neither create nor alter the table. Services
 * older than this created it in their first migration, which the `IF NOT EXISTS` leaves alone.
 *
 * A creation that is one INSERT … RETURNING can skip Prisma's interactive transaction with
 * `idempotentInsert`: the statement runs as a prepared statement on the service's tenant-scoped
 * pool, and the idempotency row rides in the same statement (a data-modifying CTE), so the pair is
 * still atomic, the concurrent-first-use race ends the same way, and a first use costs two round
 * trips (the lookup and the insert) instead of five.
 *
 * @example
 * const { result } = await idempotentCreate({ db, schema: "workspace", call, ability: "lead.create", input,
 *   recordId: id, create: (tx) => tx.lead.create({ … }), replay: (id) => readLead(id) });
 * const { result } = await idempotentInsert({ pool, schema: "workspace", call, ability: "contact.create", input,
 *   recordId: id, insert: { name: "workspace.insert_contact", text: "INSERT … RETURNING …", values },
 *   result: (row) => contactOut(row), replay: (id) => readContact(id) });
 */
import type pg from "pg";
import { GantryError, type ErrorDetail } from "../errors.ts";
import type { CallContext } from "../wire.ts";
import { canonicalJson, sha256Hex } from "./canonical.ts";
import { isUniqueViolation } from "./db-errors.ts";
import { markReplayed } from "../call-outcome.ts";
import { runPrepared } from "./prepared.ts";

export const IDEMPOTENCY_RETENTION_DAYS = 30;

/** What the module needs of a Prisma client or transaction client: raw statements. */
export interface RawQueries {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
}

/** A Prisma client: raw statements and interactive transactions. */
export interface TransactionalDb<Tx> extends RawQueries {
  $transaction<R>(fn: (tx: Tx) => Promise<R>, options?: { timeout?: number; maxWait?: number }): Promise<R>;
}

export interface IdempotentCreate<Tx extends RawQueries, T> {
  db: TransactionalDb<Tx>;
  /** Postgres schema of the service (its `idempotency_records` table lives there). */
  schema: string;
  call: CallContext;
  ability: string;
  input: object;
  /** The id the new record will get (generated before the transaction). */
  recordId: string;
  /** Creates the record inside the transaction; returns the result. */
  create: (tx: Tx) => Promise<T>;
  /** Reads what a previous call created (same tenant), for a replay. */
  replay: (recordId: string) => Promise<T>;
  /** Interactive-transaction limits for large creations. */
  txOptions?: { timeout?: number; maxWait?: number };
}

interface Row {
  input_hash: string;
  input: unknown;
  record_id: string;
}

function withoutKey(input: object): Record<string, unknown> {
  const { idempotencyKey: _key, ...rest } = input as Record<string, unknown>;
  return rest;
}

/** Top-level fields whose values differ between the first input and this one. */
export function differingFields(first: Record<string, unknown>, now: Record<string, unknown>): string[] {
  const keys = new Set([...Object.keys(first), ...Object.keys(now)]);
  return [...keys].filter((k) => canonicalJson(first[k]) !== canonicalJson(now[k])).sort();
}

function mismatch(ability: string, key: string, fields: string[]): GantryError {
  const details: ErrorDetail[] = fields.map((f) => ({
    path: `/input/${f}`,
    message: `/input/${f} differs from the first ${ability} call with this idempotencyKey`,
    code: "idempotency_mismatch",
  }));
  return new GantryError(
    "conflict",
    `idempotencyKey "${key}" was already used for ${ability} with different input (differs in: ${fields.join(", ")}).`,
    {
      reason: "Reuse an idempotencyKey only to retry the identical request; use a new key for a different request.",
      details,
    },
  );
}

/** The kit-owned table, created by the migration runner (kit/src/migrate.ts) for services that declare `idempotency`. */
export const IDEMPOTENCY_TABLE_SQL = `
CREATE TABLE IF NOT EXISTS "idempotency_records" (
    "tenant" TEXT NOT NULL,
    "ability" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "input_hash" TEXT NOT NULL,
    "input" JSONB NOT NULL,
    "record_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "idempotency_records_pkey" PRIMARY KEY ("tenant", "ability", "key")
)`;

const table = (schema: string) => `"${schema.replaceAll('"', '""')}"."idempotency_records"`;

/** The first use's idempotency row: its key and what a replay compares against. */
interface FirstUse {
  key: string;
  inputHash: string;
  /** The input without the key, as canonical JSON (the `input` column; the hash is of this text). */
  body: string;
}

/**
 * The protocol both forms share: a call without a key just creates; with one, a stored row for the
 * key answers (replay or mismatch), otherwise `createFirst` writes the row and the record together
 * and a unique violation there means a concurrent first use won, whose row then answers.
 */
async function once<T>(opts: {
  ability: string;
  input: object;
  find: (key: string) => Promise<Row | undefined>;
  /** The first call's result; `row` is the lookup's, which may carry the record itself. */
  replay: (recordId: string, row: Row) => Promise<T>;
  create: () => Promise<T>;
  /** The result, or undefined when the key was found taken without an error (`claimFirst`). */
  createFirst: (first: FirstUse) => Promise<T | undefined>;
  claimFirst?: boolean;
}): Promise<{ result: T; created: boolean }> {
  const { ability, input } = opts;
  const key = (input as { idempotencyKey?: unknown }).idempotencyKey;
  if (typeof key !== "string" || !key) return { result: await opts.create(), created: true };
  const body = withoutKey(input);
  // One serialisation for the hash and the stored input: jsonb keeps the value, not the key order,
  // and the only reader (`differingFields`, below) compares values.
  const canonical = canonicalJson(body);
  const inputHash = sha256Hex(canonical);

  const resolve = async (row: Row) => {
    if (row.input_hash !== inputHash) {
      throw mismatch(ability, key, differingFields((row.input ?? {}) as Record<string, unknown>, body));
    }
    const result = await opts.replay(row.record_id, row);
    markReplayed(); // the gateway answers with `Idempotent-Replayed: true` (kit/src/call-outcome.ts)
    return { result, created: false };
  };

  if (!opts.claimFirst) {
    const existing = await opts.find(key);
    if (existing) return resolve(existing);
  }
  let created: T | undefined;
  try {
    created = await opts.createFirst({ key, inputHash, body: canonical });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const winner = await opts.find(key);
    if (!winner) throw err;
    return resolve(winner);
  }
  if (created !== undefined) return { result: created, created: true };
  const winner = await opts.find(key);
  // Taken by a row that is gone by now: only a retention sweep deletes rows, after 30 days.
  if (!winner) throw new Error(`${ability}: idempotencyKey was taken, but no row holds it`);
  return resolve(winner);
}

/**
 * Runs `create` exactly once per (tenant, ability, idempotencyKey). Without a key it runs `create`
 * in a transaction. Returns `{result, created}`; `created` is false on a replay.
 */
export async function idempotentCreate<Tx extends RawQueries, T>(
  opts: IdempotentCreate<Tx, T>,
): Promise<{ result: T; created: boolean }> {
  const { db, call, ability, recordId } = opts;
  const select = `SELECT input_hash, input, record_id FROM ${table(opts.schema)} WHERE tenant = $1 AND ability = $2 AND key = $3`;
  return once({
    ability,
    input: opts.input,
    find: async (key) => (await db.$queryRawUnsafe<Row[]>(select, call.tenant, ability, key))[0],
    replay: opts.replay,
    create: () => db.$transaction((tx) => opts.create(tx), opts.txOptions),
    createFirst: (first) =>
      db.$transaction(async (tx) => {
        await tx.$executeRawUnsafe(
          `INSERT INTO ${table(opts.schema)} (tenant, ability, key, input_hash, input, record_id, created_at) VALUES ($1, $2, $3, $4, $5::jsonb, $6, now())`,
          call.tenant,
          ability,
          first.key,
          first.inputHash,
          first.body,
          recordId,
        );
        return opts.create(tx);
      }, opts.txOptions),
  });
}

export interface IdempotentInsert<R extends pg.QueryResultRow, T, S extends pg.QueryResultRow = R> {
  /** The service's tenant-scoped pool (kit `TenantPool`): row-level security holds both rows to the call's tenant. */
  pool: pg.Pool;
  /** Postgres schema of the service (its `idempotency_records` table lives there). */
  schema: string;
  call: CallContext;
  ability: string;
  input: object;
  /** The id the new record will get. */
  recordId: string;
  /**
   * The creation: one INSERT … RETURNING (a single statement, so atomic on its own), with a
   * prepared-statement name unique to its text and its parameters as `$1…$n`. It may begin with
   * `WITH` (data-modifying CTEs writing several rows); the idempotency row joins that list.
   */
  insert: { name: string; text: string; values: unknown[] };
  /**
   * The result, from the row the INSERT returned (which may be a marker only, such as its id, when
   * the caller already holds everything it wrote).
   */
  result: (row: R) => T;
  /** Reads what a previous call created (same tenant), for a replay. */
  replay: (recordId: string) => Promise<T>;
  /**
   * Claim the key in the statement and look it up only when it was taken: a first use is one round
   * trip instead of two, a replay three (the statement, the lookup, the read; two with `replayRow`)
   * instead of two. For hot creations whose callers send a new key per request and rarely retry.
   *
   * The statement's first CTE is then `claim`, the kit's `INSERT … ON CONFLICT DO NOTHING
   * RETURNING record_id`: one row when this call claimed the key (and when the call has no key),
   * none when a first use holds it; Postgres makes a concurrent first use wait for that one's
   * transaction, and a key whose first use rolled back is claimed. The statement must write only
   * from `claim` (`INSERT … SELECT … FROM claim`, or a CTE that reads it), so a taken key writes
   * nothing, raises nothing (no unique-violation error in Postgres's log on every replay), and
   * returns no row; anything the statement locks or checks from `claim` comes after the key, so
   * two first uses of one key queue on the key, not on what the statement locks.
   */
  claimFirst?: boolean;
  /**
   * Runs the `claimFirst` statement of a first use and answers its rows, instead of running it alone
   * on `pool`: a `batchedWrites` writer (kit/data/batched) that sends the claims of calls arriving
   * together as one statement. It must answer what the statement alone would (a row, or none for a
   * taken key) or throw what it would.
   */
  claimWith?: (statement: { name: string; text: string; values: unknown[] }) => Promise<R[]>;
  /**
   * The record as a replay answers it, read by the key's lookup itself: `columns` (no column named
   * `input_hash`, `input` or `record_id`) of the `table` row whose `id` is the key's record, turned
   * into the answer by `result`. A replay is then the statement and one lookup instead of a lookup
   * and `replay`'s read; `replay` still answers when the row is not found.
   */
  replayRow?: { table: string; columns: string; result: (row: S) => T };
}

interface Statement {
  name: string;
  text: string;
}

/** The statements `idempotentInsert` runs for one creation, and what they were built from. */
interface Statements {
  from: { text: string; values: number; table?: string; columns?: string };
  find: Statement;
  unkeyed: Statement;
  claim: Statement;
  idempotency: Statement;
}

/**
 * Built once per creation (schema and statement name), not on every call: a name stands for one
 * text, so only a caller that gives a name another text builds again (and `runPrepared` refuses it).
 */
const built = new Map<string, Statements>();

function statementsOf(opts: {
  schema: string;
  insert: { name: string; text: string; values: unknown[] };
  replayRow?: { table: string; columns: string };
}): Statements {
  const { insert, replayRow } = opts;
  const key = `${opts.schema}\n${insert.name}`;
  const known = built.get(key);
  const n = insert.values.length;
  const { from } = known ?? {};
  if (
    from?.text === insert.text &&
    from.values === n &&
    from.table === replayRow?.table &&
    from.columns === replayRow?.columns
  ) {
    return known as Statements;
  }
  const records = table(opts.schema);
  const rest = insert.text.trimStart();
  // The idempotency row is the first CTE; the statement's own CTEs, if any, follow it.
  const following = rest.startsWith("WITH ") ? `, ${rest.slice(5)}` : `\n${rest}`;
  const row = `INSERT INTO ${records} (tenant, ability, key, input_hash, input, record_id, created_at)
           VALUES ($${n + 1}, $${n + 2}, $${n + 3}, $${n + 4}, $${n + 5}::jsonb, $${n + 6}, now())`;
  // With `replayRow` the record comes with its key; row-level security holds the lateral read to the tenant too.
  const find = replayRow
    ? {
        name: `${insert.name}+find`,
        text: `SELECT i.input_hash, i.input, i.record_id, r.* FROM ${records} i
           LEFT JOIN LATERAL (SELECT ${replayRow.columns} FROM ${replayRow.table} WHERE id = i.record_id) r ON true
          WHERE i.tenant = $1 AND i.ability = $2 AND i.key = $3`,
      }
    : {
        name: `${opts.schema}.idempotency_find`,
        text: `SELECT input_hash, input, record_id FROM ${records} WHERE tenant = $1 AND ability = $2 AND key = $3`,
      };
  const statements: Statements = {
    from: { text: insert.text, values: n, table: replayRow?.table, columns: replayRow?.columns },
    find,
    unkeyed: { name: `${insert.name}+unkeyed`, text: `WITH claim AS (SELECT NULL::text AS record_id)${following}` },
    claim: {
      name: `${insert.name}+claim`,
      text: `WITH claim AS (${row}
           ON CONFLICT (tenant, ability, key) DO NOTHING RETURNING record_id)${following}`,
    },
    idempotency: { name: `${insert.name}+idempotency`, text: `WITH idempotency AS (${row})${following}` },
  };
  built.set(key, statements);
  return statements;
}

/**
 * `idempotentCreate` for a creation that is one INSERT … RETURNING: same semantics, no interactive
 * transaction. Without a key the statement runs alone; with one, the idempotency row is inserted by
 * the same statement, so a concurrent first use waits on it and fails with a unique violation, and
 * neither row exists unless both do.
 */
export async function idempotentInsert<R extends pg.QueryResultRow, T, S extends pg.QueryResultRow = R>(
  opts: IdempotentInsert<R, T, S>,
): Promise<{ result: T; created: boolean }> {
  const { pool, call, ability, insert } = opts;
  /** The statement's result; undefined when it returned no row and `taken` says that means a taken key. */
  const run = async (name: string, text: string, values: unknown[], taken = false): Promise<T | undefined> => {
    const [returned] =
      taken && opts.claimWith
        ? await opts.claimWith({ name, text, values })
        : await runPrepared<R>(pool, name, text, values);
    if (returned) return opts.result(returned);
    if (taken) return undefined;
    throw new Error(`${insert.name} returned no row`);
  };
  const { find, unkeyed, claim, idempotency } = statementsOf(opts);
  return once({
    ability,
    input: opts.input,
    find: async (key) => (await runPrepared<Row>(pool, find.name, find.text, [call.tenant, ability, key]))[0],
    replay: (recordId, found) => {
      const { input_hash: _hash, input: _input, record_id: _id, ...record } = found as Row & Record<string, unknown>;
      const { replayRow } = opts;
      return replayRow && record.id != null ? Promise.resolve(replayRow.result(record as S)) : opts.replay(recordId);
    },
    claimFirst: opts.claimFirst,
    // Without `taken`, a statement that returns no row throws: never undefined.
    create: () =>
      (opts.claimFirst
        ? run(unkeyed.name, unkeyed.text, insert.values)
        : run(insert.name, insert.text, insert.values)) as Promise<T>,
    createFirst: (first) => {
      const values = [...insert.values, call.tenant, ability, first.key, first.inputHash, first.body, opts.recordId];
      if (opts.claimFirst) return run(claim.name, claim.text, values, true);
      return run(idempotency.name, idempotency.text, values);
    },
  });
}

/** Deletes idempotency rows older than the retention; returns how many. Run in system scope. */
export async function sweepIdempotency(
  pool: pg.Pool,
  schema: string,
  days = IDEMPOTENCY_RETENTION_DAYS,
): Promise<number> {
  const res = await pool.query(`DELETE FROM ${table(schema)} WHERE created_at < now() - make_interval(days => $1)`, [
    days,
  ]);
  return res.rowCount ?? 0;
}
