/**
 * @module kit/data/prepared
 * A hot-path read as a named prepared statement on the service's `TenantPool`, for the few reads
 * where Prisma's per-query cost shows (docs/benchmarks.md, *Named prepared statements for hot
 * reads*).
 * Postgres plans the statement once per connection.
 *
 * Tenant isolation holds by construction, as for Prisma: the pool puts the call's scope on the
 * connection before the statement runs and row-level security filters the rows; a `tenant = $n`
 * clause is there only so the index is used. Columns are aliased to the Prisma model's field names
 * so rows feed the same output mappers.
 *
 * The statement runs as a pg "submittable" (the extension point pg-cursor uses) rather than pg's
 * own `Query`, which on every execution copies its config property by property, asks Postgres to
 * describe the result again and rebuilds the row parsers from that description. Here the first
 * execution in the process describes the result and the statement keeps its column names and
 * parsers (a prepared statement's result shape is fixed by its text); later executions send only
 * Bind, Execute and Sync, built as one buffer and written at once (extended-query.ts: the bytes
 * pg's serializer would send). Columns are parsed by pg's own functions, so rows are exactly what
 * `pool.query` returns. It relies on pg's `Connection` (its socket and its per-connection record
 * of parsed statements; prepared.test.ts covers both).
 *
 * @example
 * const contactById = preparedQuery<Contact, [id: string, tenant: string]>(
 *   "workspace.contact_by_id",
 *   `SELECT id, … FROM workspace.contacts WHERE id = $1 AND tenant = $2`,
 * );
 * const [row] = await contactById(ctx.pool, input.id, call.tenant);
 */
import pg from "pg";
import { SYNC, executionMessages } from "./extended-query.ts";

type Parser = (text: string) => unknown;

/** A statement's result shape, learnt from its first execution. */
interface Shape {
  names: string[];
  parsers: Parser[];
}

/** What this module uses of pg's (internal) `Connection`. */
interface Connection {
  stream: { writable: boolean; write(data: Buffer): boolean };
  parsedStatements: Record<string, string>;
  submittedNamedStatements: Record<string, string>;
  sendCopyFail(message: string): void;
}

/** The shapes of every statement run so far, by name; a name stands for one text only. */
const statements = new Map<string, { text: string; shape?: Shape }>();

function statementOf(name: string, text: string): { text: string; shape?: Shape } {
  const known = statements.get(name);
  if (known && known.text !== text) throw new Error(`prepared statement ${name} is already defined with another text`);
  if (known) return known;
  const statement = { text };
  statements.set(name, statement);
  return statement;
}

/** One execution, handed to `pool.query`; pg's client calls these methods as the messages arrive. */
class Execution<Row> {
  readonly name: string;
  readonly text: string;
  /** Set by the client from `pool.query`'s callback. */
  callback?: (err: Error | null, rows?: Row[]) => void;
  readonly #statement: { text: string; shape?: Shape };
  readonly #values: unknown[];
  readonly #rows: Row[] = [];
  #failed: Error | undefined;

  constructor(name: string, statement: { text: string; shape?: Shape }, values: unknown[]) {
    this.name = name;
    this.text = statement.text;
    this.#statement = statement;
    this.#values = values;
  }

  submit(connection: Connection): Error | null {
    const parsed = connection.parsedStatements[this.name] ?? connection.submittedNamedStatements[this.name];
    if (parsed !== undefined && parsed !== this.text) {
      return new Error(`Prepared statements must be unique - '${this.name}' was used for a different statement`);
    }
    let messages: Buffer;
    try {
      messages = executionMessages(
        this.name,
        parsed === undefined ? this.text : undefined,
        this.#values,
        !this.#statement.shape,
      );
    } catch (err) {
      // A value pg cannot serialise: nothing was sent, so close the exchange and report it.
      this.#failed = err as Error;
      messages = SYNC;
    }
    if (!this.#failed && parsed === undefined) connection.submittedNamedStatements[this.name] = this.text;
    // As pg's own sends: a stream that is no longer writable errors the connection, which ends the query.
    if (connection.stream.writable) connection.stream.write(messages);
    return null;
  }

  handleRowDescription(msg: { fields: Array<{ name: string; dataTypeID: number }> }): void {
    this.#statement.shape = {
      names: msg.fields.map((f) => f.name),
      parsers: msg.fields.map((f) => pg.types.getTypeParser(f.dataTypeID, "text") as Parser),
    };
  }

  handleDataRow(msg: { fields: Array<string | null> }): void {
    if (this.#failed) return;
    const { names, parsers } = this.#statement.shape!;
    const row: Record<string, unknown> = {};
    try {
      for (let i = 0; i < msg.fields.length; i++) {
        const value = msg.fields[i];
        row[names[i]] = value === null ? null : parsers[i](value);
      }
    } catch (err) {
      // Thrown here it would surface in the socket's data handler; it answers the call instead.
      this.#failed = err as Error;
      return;
    }
    this.#rows.push(row as Row);
  }

  handleError(err: Error): void {
    this.#finish(err);
  }

  handleReadyForQuery(): void {
    this.#finish(this.#failed ?? null);
  }

  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyInResponse(connection: Connection): void {
    connection.sendCopyFail("No source stream defined");
  }
  handleCopyData(): void {}

  #finish(err: Error | null): void {
    const callback = this.callback;
    this.callback = undefined;
    if (err) callback?.(err);
    else callback?.(null, this.#rows);
  }
}

/**
 * Runs the named statement on a connection of `pool` (a `TenantPool`: the connection carries the
 * caller's scope), or on a client already checked out of it (inside a transaction), and returns its
 * rows. `name` must always come with the same `text`.
 */
export function runPrepared<Row extends pg.QueryResultRow>(
  pool: pg.Pool | pg.ClientBase,
  name: string,
  text: string,
  values: unknown[],
): Promise<Row[]> {
  const execution = new Execution<Row>(name, statementOf(name, text), values);
  // A pool checks a connection out, hands it the submittable and releases it on the callback; a
  // client runs it in turn after what it already runs.
  return new Promise((resolve, reject) => {
    (pool.query as (q: unknown, cb: (err: Error | null, rows?: Row[]) => void) => void).call(
      pool,
      execution,
      (err, rows) => (err ? reject(err) : resolve(rows ?? [])),
    );
  });
}

export function preparedQuery<Row extends pg.QueryResultRow, Values extends unknown[]>(name: string, text: string) {
  return (pool: pg.Pool | pg.ClientBase, ...values: Values): Promise<Row[]> =>
    runPrepared<Row>(pool, name, text, values);
}
