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
import { callSignal, detachedFromCall, withCallSignal } from "../call-signal.ts";

/** Keys per statement at most; a busier turn starts another batch. */
const MAX_KEYS = 256;

interface Batch<Row> {
  keys: string[];
  waiters: Map<string, Array<{ resolve: (row: Row | undefined) => void; reject: (err: unknown) => void }>>;
}

/**
 * The open groups of `pool` in `open`, and the group of a call in the current scope: the scope is
 * part of it, so a statement never mixes tenants (nor a tenant and the system).
 */
function groupOf<G>(open: WeakMap<pg.Pool, Map<string, G>>, pool: pg.Pool, parts: string[]) {
  const scope = currentScope();
  const key = `${scope?.kind === "tenant" ? `t:${scope.tenant}` : (scope?.kind ?? "none")}\0${parts.join("\0")}`;
  let groups = open.get(pool);
  if (!groups) {
    groups = new Map();
    open.set(pool, groups);
  }
  return { groups, key };
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
    const { groups, key: group } = groupOf(open, pool, rest);
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

/** Items per statement at most for `batchedWrites`; more wait for the next one. */
const MAX_WRITES = 64;

interface WriteGroup<Item, Result> {
  running: number;
  waiting: Array<{
    item: Item;
    /** The caller's cancellation, if any. */
    signal: AbortSignal | undefined;
    resolve: (result: Result) => void;
    reject: (err: unknown) => void;
  }>;
  /** A start is already scheduled for the end of this turn. */
  scheduled: boolean;
}

/**
 * Returns a writer that sends items arriving together as one statement. A write is mostly the
 * statement's fixed price in Postgres (its plan's start-up, its triggers, its commit; a payout's
 * accepting statement is ~0.6 ms of Postgres alone against ~0.15 ms a payout in one of 16), so
 * under load it pays once for several calls. At most `inFlight` statements of a group run at once
 * (`running`); what arrives meanwhile waits and goes as the next statement when one ends, so a lone
 * call waits for nothing but the end of its turn, and is written by `one`, its own statement.
 *
 * `many` writes several items in one statement and answers each item's result in order. When it
 * fails, each of its items is written again alone by `one`, so every caller gets the answer (or
 * error) its own statement gives, as without batching: a statement that refuses one item (a
 * database check, a conflict) refuses the whole batch, and an item must never be refused for
 * another's sake. `many` must therefore write all or nothing (one statement does).
 *
 * Groups are as in `batchedLookup`: the caller's tenant scope and `group`; each statement runs in its
 * group's scope. An item's own statement (`one`) is its caller's work, cancelled with it as any
 * statement is (kit/tenancy `TenantPool`); a statement of several serves them all, so no one
 * caller's cancellation stops it. An item whose caller gave up before its statement started is not
 * written: it fails with the caller's reason.
 */
export function batchedWrites<Item, Result>(opts: {
  one: (pool: pg.Pool, item: Item) => Promise<Result>;
  many: (pool: pg.Pool, items: Item[]) => Promise<Result[]>;
  /** Statements of one group in flight at once (default 2). */
  inFlight?: number;
}) {
  const inFlight = opts.inFlight ?? 2;
  const open = new WeakMap<pg.Pool, Map<string, WriteGroup<Item, Result>>>();

  /** Sends what waits, while the group may run another statement; called in the group's scope. */
  function start(
    pool: pg.Pool,
    groups: Map<string, WriteGroup<Item, Result>>,
    key: string,
    g: WriteGroup<Item, Result>,
  ) {
    g.scheduled = false;
    for (const w of g.waiting.filter((w) => w.signal?.aborted)) w.reject(w.signal!.reason);
    g.waiting = g.waiting.filter((w) => !w.signal?.aborted);
    while (g.running < inFlight && g.waiting.length > 0) {
      const batch = g.waiting.splice(0, MAX_WRITES);
      g.running++;
      void detachedFromCall(() => write(pool, batch)).finally(() => {
        g.running--;
        if (g.waiting.length > 0) start(pool, groups, key, g);
        else if (g.running === 0 && groups.get(key) === g) groups.delete(key);
      });
    }
  }

  async function write(pool: pg.Pool, batch: WriteGroup<Item, Result>["waiting"]): Promise<void> {
    if (batch.length > 1) {
      let results: Result[] | undefined;
      try {
        results = await opts.many(
          pool,
          batch.map((w) => w.item),
        );
      } catch {
        // Each alone below: its own answer, whatever refused the batch.
      }
      if (results) {
        for (const [i, w] of batch.entries()) w.resolve(results[i]);
        return;
      }
    }
    await Promise.all(
      batch.map((w) =>
        (w.signal ? withCallSignal(w.signal, () => opts.one(pool, w.item)) : opts.one(pool, w.item)).then(
          (result) => w.resolve(result),
          (err) => w.reject(err),
        ),
      ),
    );
  }

  return (pool: pg.Pool, item: Item, group = ""): Promise<Result> => {
    const { groups, key } = groupOf(open, pool, [group]);
    let g = groups.get(key);
    if (!g) {
      g = { running: 0, waiting: [], scheduled: false };
      groups.set(key, g);
    }
    const signal = callSignal();
    const promise = new Promise<Result>((resolve, reject) => g.waiting.push({ item, signal, resolve, reject }));
    if (!g.scheduled && g.running < inFlight) {
      g.scheduled = true;
      // As in batchedLookup: after this turn's I/O callbacks, in this caller's context, whose scope
      // is the group's; later statements of the group start from an earlier one's end, in the same scope.
      const started = g;
      setImmediate(() => start(pool, groups, key, started));
    }
    return promise;
  };
}
