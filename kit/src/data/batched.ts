/**
 * @module kit/data/batched
 * By-key reads that arrive together go to Postgres together. Under load a service receives several
 * calls in one turn of the event loop (one socket read carries many gRPC streams); each read by id
 * used to cost its own pool checkout, socket write and Postgres wake-up, which on this kind of
 * machine is most of the read's price. A `batchedLookup` collects the keys asked for in one turn and
 * runs its prepared statement once, with the keys as an array (`= ANY($1)`), then hands each caller
 * its row. A lone call waits for nothing but the end of the current turn.
 *
 * Calls are batched only with calls in the same tenant scope and with the same other parameters:
 * the batch runs in that scope, so row-level security holds each row to the tenant that asked, as
 * for any other statement. A failing statement fails every call of its batch, as it would have
 * failed each of them alone.
 *
 * @example
 * const contactById = batchedLookup<Contact, [tenant: string]>(
 *   "workspace.contacts_by_id",
 *   `SELECT id, … FROM workspace.contacts WHERE id = ANY($1) AND tenant = $2`,
 *   (row) => row.id,
 * );
 * const row = await contactById(ctx.pool, input.id, call.tenant); // the row, or undefined
 */
import type pg from "pg";
import { currentScope } from "../tenancy.ts";
import { runPrepared } from "./prepared.ts";
import { detachedFromCall } from "../call-signal.ts";

/** Keys per statement at most; a busier turn starts another batch. */
const MAX_KEYS = 256;

interface Batch<Row> {
  keys: string[];
  waiters: Map<string, Array<{ resolve: (row: Row | undefined) => void; reject: (err: unknown) => void }>>;
}

/**
 * Returns a reader of one row by key. `text` is a prepared statement taking the keys as `$1` (an
 * array) and `rest` as `$2…`; `keyOf` names the key of a returned row.
 */
export function batchedLookup<Row extends pg.QueryResultRow, Rest extends string[] = []>(
  name: string,
  text: string,
  keyOf: (row: Row) => string,
) {
  const open = new WeakMap<pg.Pool, Map<string, Batch<Row>>>();

  async function run(pool: pg.Pool, groups: Map<string, Batch<Row>>, group: string, batch: Batch<Row>, rest: Rest) {
    // Closed to newcomers unless a full batch was already replaced by a fresh one.
    if (groups.get(group) === batch) groups.delete(group);
    try {
      const rows = await runPrepared<Row>(pool, name, text, [batch.keys, ...rest]);
      const found = new Map<string, Row>();
      for (const row of rows) found.set(keyOf(row), row);
      for (const [key, waiters] of batch.waiters) for (const w of waiters) w.resolve(found.get(key));
    } catch (err) {
      for (const waiters of batch.waiters.values()) for (const w of waiters) w.reject(err);
    }
  }

  return (pool: pg.Pool, key: string, ...rest: Rest): Promise<Row | undefined> => {
    const scope = currentScope();
    // The scope is part of the group, so a batch never mixes tenants (nor a tenant and the system).
    const group = `${scope?.kind === "tenant" ? `t:${scope.tenant}` : (scope?.kind ?? "none")}\0${rest.join("\0")}`;
    let groups = open.get(pool);
    if (!groups) {
      groups = new Map();
      open.set(pool, groups);
    }
    let batch = groups.get(group);
    if (!batch || batch.keys.length >= MAX_KEYS) {
      const fresh: Batch<Row> = { keys: [], waiters: new Map() };
      groups.set(group, fresh);
      // setImmediate runs after every I/O callback of this turn and in the async context of this
      // first caller, whose scope is the group's: the statement runs in it.
      // The statement serves every caller in the batch, so it is not cancelled when the first one gives up.
      setImmediate(() => void detachedFromCall(() => run(pool, groups, group, fresh, rest)));
      batch = fresh;
    }
    return new Promise((resolve, reject) => {
      const waiters = batch.waiters.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else {
        batch.keys.push(key);
        batch.waiters.set(key, [{ resolve, reject }]);
      }
    });
  };
}
