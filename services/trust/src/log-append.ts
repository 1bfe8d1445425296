/**
 * @module trust/log-append
 * Appending receipts to a tenant's log with group commit: the receipts of one tenant that arrive
 * while a batch of that tenant is being written wait and go together in the next batch. Each
 * receipt is in the log (indexed, its nodes stored) before the PermitGate.Batch call carrying it
 * answers for it. The permits of the tenant's calls wait in the same queue: when both kinds wait,
 * one statement takes the permits and appends the receipts (APPEND_TAKING: one round trip and one
 * commit instead of two), else each kind goes alone as soon as the batch before it is written.
 *
 * A batch is one statement when this process knows the log's right edge (it wrote the last batch):
 * a compare-and-swap on `logs.size` that inserts the receipts, the O(k + log n) nodes they complete
 * and the new size only if the log still has the size the edge is for. Otherwise (first batch of a
 * tenant in this process, another replica appended meanwhile, or a request id already recorded) it
 * is one transaction that takes the tenant's `logs` row lock with its first statement, then reads
 * the right edge and which request ids are receipts already, then appends the rest. Either
 * way the lock is held for one statement or transaction per batch, never across a caller's round
 * trips, replicas appending for one tenant take turns batch by batch, and the remembered edge is
 * only a guess the database confirms: nothing another replica needs lives here.
 */
import type pg from "pg";
import { detachedFromCall, inTransaction, preparedQuery, withTenant } from "@gantry/kit";
import { appendNodes, frontierOf } from "./merkle.ts";
import { keyOf } from "./log-nodes.ts";
import { type TakeArgs, takePermits } from "./take-permits.ts";

/** One receipt to append, as the `receipts` row is written. */
export interface ReceiptRow {
  requestId: string;
  tenant: string;
  runId: string;
  permitId: string | null;
  ability: string;
  inputHash: string;
  resultHash: string | null;
  outcome: "succeeded" | "failed";
  status: number;
  at: Date;
  /** The signed envelope's canonical JSON: the leaf's data, and the text the row's jsonb is read from. */
  envelope: string;
  leaf: Buffer;
}

interface Waiting {
  row: ReceiptRow;
  resolve: (logIndex: number) => void;
  reject: (err: unknown) => void;
}

/** More than this many waiting receipts of a tenant go in several batches (bounded statements). */
const MAX_BATCH = 500;
/** Tenants whose right edge a process remembers (each at most 31 hashes). */
const MAX_EDGES = 10_000;

/** A log's size and the nodes of its right edge (by keyOf) as this process last wrote them. */
interface Edge {
  size: number;
  frontier: Map<string, Buffer>;
}

/**
 * Appends the receipts at `expected`, the log's size, in one statement that does nothing unless the
 * log still has that size (compare-and-swap on `logs.size`, whose row lock it takes): inserts the
 * receipts, the nodes and the new size, or none of them. Returns the rows it changed (1 or 0).
 */
const APPEND_AT = `WITH l AS (UPDATE trust.logs SET size = $6 WHERE tenant = $1 AND size = $7 RETURNING size),
  r AS (
    INSERT INTO trust.receipts (request_id, tenant, run_id, permit_id, ability, input_hash, result_hash,
                                outcome, status, at, envelope, leaf_hash, log_index)
    SELECT x.request_id, $1, x.run_id, x.permit_id, x.ability, x.input_hash, x.result_hash,
           x.outcome, x.status, x.at, x.envelope, x.leaf_hash, x.log_index
      FROM jsonb_to_recordset($2::jsonb) AS x(request_id text, run_id text, permit_id text, ability text,
           input_hash text, result_hash text, outcome text, status int, at timestamptz, envelope jsonb,
           leaf_hash text, log_index int)
     WHERE EXISTS (SELECT 1 FROM l)),
  n AS (
    INSERT INTO trust.log_nodes (tenant, level, idx, hash)
    SELECT $1, u.level, u.idx, decode(u.hash, 'hex') FROM unnest($3::int[], $4::int[], $5::text[]) AS u(level, idx, hash)
     WHERE EXISTS (SELECT 1 FROM l))
  SELECT size FROM l`;
const appendAt = preparedQuery<{ size: number }, unknown[]>("trust.append_at", APPEND_AT);

/**
 * APPEND_AT and the consume of the tenant's waiting permits (`trust.take_permits`, take-permits.ts) in
 * one statement: one round trip and one commit for both instead of two. The consume takes its
 * permits whether or not the compare-and-swap appends (`size` is null when it did not), and an
 * error undoes both, as one statement. The log's row is locked SKIP LOCKED: while another replica
 * appends, the permits are taken without waiting for its lock, and the receipts follow under the
 * lock (lockedBatch), as when the log moved on. $8–$13 are the consume's arguments after the tenant.
 */
const APPEND_TAKING = (() => {
  const casAt = "WITH l AS (UPDATE trust.logs SET size = $6 WHERE tenant = $1 AND size = $7 RETURNING size),";
  const last = "SELECT size FROM l";
  if (!APPEND_AT.startsWith(casAt) || !APPEND_AT.endsWith(last)) throw new Error("APPEND_AT changed its shape");
  return `WITH p AS (SELECT ord, id FROM trust.take_permits($1, $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13)),
  k AS (SELECT tenant FROM trust.logs WHERE tenant = $1 AND size = $7 FOR UPDATE SKIP LOCKED),
  l AS (UPDATE trust.logs SET size = $6 FROM k WHERE logs.tenant = k.tenant RETURNING logs.size),${APPEND_AT.slice(casAt.length, -last.length)}SELECT (SELECT size FROM l) AS size,
       (SELECT coalesce(json_agg(json_build_array(p.ord, p.id)), '[]') FROM p) AS taken`;
})();
const appendTaking = preparedQuery<{ size: number | null; taken: [number, string][] }, unknown[]>(
  "trust.append_taking",
  APPEND_TAKING,
);

/**
 * The receipts appended at `edge` and the permits taken, in one statement: `appended` is null when
 * the log moved on meanwhile (the permits are taken all the same).
 */
async function appendTakingAt(
  pool: pg.Pool,
  edge: Edge,
  rows: readonly ReceiptRow[],
  take: { args: TakeArgs },
): Promise<{ appended: { indexes: Map<string, number>; after: Edge } | null; taken: TakenPermit[] }> {
  const { values, after } = appendValues(rows[0]!.tenant, edge, rows);
  const [row] = await appendTaking(pool, ...values, ...take.args);
  return {
    appended: row!.size === null ? null : { indexes: new Map(rows.map((r, i) => [r.requestId, edge.size + i])), after },
    taken: row!.taken.map(([ord, id]) => ({ ord: Number(ord), id })),
  };
}

/** A permit the consume took: its call's position in the consume's arrays (from 1) and its id. */
export interface TakenPermit {
  ord: number;
  id: string;
}

/** The values of APPEND_AT for `rows` appended to the log of `edge`, and the edge after them. */
function appendValues(tenant: string, edge: Edge, rows: readonly ReceiptRow[]): { values: unknown[]; after: Edge } {
  const nodes = appendNodes(
    edge.size,
    edge.frontier,
    rows.map((r) => r.leaf),
  );
  const size = edge.size + rows.length;
  const known = new Map(edge.frontier);
  for (const n of nodes) known.set(keyOf(n.level, n.idx), n.hash);
  const frontier = new Map(
    frontierOf(size).map(({ level, idx }) => [keyOf(level, idx), known.get(keyOf(level, idx))!]),
  );
  // Leaves are the receipts' leaf_hash (log-nodes.ts): only the levels above go to log_nodes.
  const inner = nodes.filter((n) => n.level > 0);
  return {
    values: [
      tenant,
      recordsetJson(rows, edge.size),
      inner.map((n) => n.level),
      inner.map((n) => n.idx),
      inner.map((n) => n.hash.toString("hex")),
      size,
      edge.size,
    ],
    after: { size, frontier },
  };
}

const q = JSON.stringify;

/**
 * APPEND_AT's `jsonb_to_recordset` text for `rows` from log index `first`, written out: the envelope
 * goes in as the canonical JSON the leaf hashes, where a JSON.stringify of the rows would serialise
 * the envelope a second time (README *Trust's own CPU a run call*). The other values as JSON.stringify
 * writes them.
 */
export function recordsetJson(rows: readonly ReceiptRow[], first: number): string {
  let out = "[";
  for (const [i, r] of rows.entries())
    out +=
      `${i ? "," : ""}{"request_id":${q(r.requestId)},"run_id":${q(r.runId)},"permit_id":${q(r.permitId)},` +
      `"ability":${q(r.ability)},"input_hash":${q(r.inputHash)},"result_hash":${q(r.resultHash)},` +
      `"outcome":${q(r.outcome)},"status":${q(r.status)},"at":${q(r.at.toISOString())},"envelope":${r.envelope},` +
      `"leaf_hash":"${r.leaf.toString("hex")}","log_index":${first + i}}`;
  return `${out}]`;
}

/**
 * The batch in one round trip, when this process knows the log's right edge: null when the log
 * moved on meanwhile (another replica appended) or a request id is a receipt already (a replay),
 * for {@link lockedBatch} to sort out.
 */
async function fastBatch(
  pool: pg.Pool,
  tenant: string,
  edge: Edge,
  rows: readonly ReceiptRow[],
): Promise<{ indexes: Map<string, number>; after: Edge } | null> {
  const { values, after } = appendValues(tenant, edge, rows);
  try {
    if ((await appendAt(pool, ...values)).length === 0) return null;
  } catch (err) {
    if ((err as { code?: string }).code === "23505") return null;
    throw err;
  }
  return { indexes: new Map(rows.map((r, i) => [r.requestId, edge.size + i])), after };
}

/**
 * The batch under the log's row lock: the first statement takes it and reads the size, the second
 * the right edge and which request ids are receipts already, the third appends the others.
 */
async function lockedBatch(
  pool: pg.Pool,
  tenant: string,
  rows: readonly ReceiptRow[],
): Promise<{ indexes: Map<string, number>; after: Edge }> {
  return inTransaction(pool, async (c) => {
    // The lock first, alone: a statement that waited for it reads with the snapshot it started
    // with, which would miss the batch committed meanwhile; the next statement sees it.
    const [{ size }] = (
      await c.query<{ size: number }>(
        `INSERT INTO trust.logs (tenant, size) VALUES ($1, 0)
         ON CONFLICT (tenant) DO UPDATE SET size = logs.size RETURNING size`,
        [tenant],
      )
    ).rows as [{ size: number }];
    const [head] = (
      await c.query<{
        frontier: { level: number; idx: number; hash: string }[] | null;
        existing: [string, number][] | null;
      }>(
        `SELECT
           (SELECT json_agg(e) FROM (
              SELECT json_build_object('level', n.level, 'idx', n.idx, 'hash', encode(n.hash, 'hex')) AS e
                FROM trust.log_nodes n, generate_series(1, 30) g
               WHERE n.tenant = $1 AND n.level = g AND n.idx = ($2::int >> g) - 1 AND (($2::int >> g) & 1) = 1
              UNION ALL
              SELECT json_build_object('level', 0, 'idx', r.log_index, 'hash', r.leaf_hash)
                FROM trust.receipts r
               WHERE r.tenant = $1 AND r.log_index = $2::int - 1 AND ($2::int & 1) = 1) f) AS frontier,
           (SELECT json_agg(json_build_array(r.request_id, r.log_index))
              FROM trust.receipts r WHERE r.request_id = ANY($3::text[]) AND r.tenant = $1) AS existing`,
        [tenant, size, rows.map((r) => r.requestId)],
      )
    ).rows as [
      { frontier: { level: number; idx: number; hash: string }[] | null; existing: [string, number][] | null },
    ];
    const indexes = new Map<string, number>(head.existing ?? []);
    const edge: Edge = {
      size,
      frontier: new Map((head.frontier ?? []).map((n) => [keyOf(n.level, n.idx), Buffer.from(n.hash, "hex")])),
    };
    if (edge.frontier.size !== frontierOf(size).length)
      throw new Error(`the log of ${tenant} lacks nodes of its right edge at size ${size}`);
    const fresh = rows.filter((r) => !indexes.has(r.requestId));
    if (!fresh.length) return { indexes, after: edge };
    const { values, after } = appendValues(tenant, edge, fresh);
    await c.query(APPEND_AT, values);
    for (const [i, r] of fresh.entries()) indexes.set(r.requestId, edge.size + i);
    return { indexes, after };
  });
}

/** The permits of one PermitGate.Batch call of a tenant, waiting to be taken with its next batch. */
interface WaitingTake {
  args: TakeArgs;
  resolve: (taken: { taken: TakenPermit[]; now: number }) => void;
  reject: (err: unknown) => void;
}

/** What waits for a tenant's next batch. */
interface Queue {
  receipts: Waiting[];
  takes: WaitingTake[];
}

/**
 * The per-process queues of the tenants' next batches: the receipts to append and the permits to
 * take, together in one statement when both wait (APPEND_TAKING).
 */
export class LogAppender {
  private readonly waiting = new Map<string, Queue>();
  /** Each tenant's right edge as this process last wrote it: a guess the database confirms. */
  private readonly edges = new Map<string, Edge>();
  private readonly pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.pool = pool;
  }

  /** Appends the receipt (or finds the one already recorded for its request id); its log index. */
  append(row: ReceiptRow): Promise<number> {
    return new Promise((resolve, reject) => this.queue(row.tenant).receipts.push({ row, resolve, reject }));
  }

  /**
   * Takes permits of `tenant`'s calls (`trust.take_permits`'s arguments after the tenant, at the
   * time they carry) in the tenant's next batch: in the statement that appends its receipts when
   * receipts wait too, else alone. The rows the consume took (`ord` counts from 1 in `args`), and
   * the time they were taken at.
   */
  take(tenant: string, args: TakeArgs): Promise<{ taken: TakenPermit[]; now: number }> {
    return new Promise((resolve, reject) => this.queue(tenant).takes.push({ args, resolve, reject }));
  }

  /** The tenant's queue, its drain started by the first item. */
  private queue(tenant: string): Queue {
    let queue = this.waiting.get(tenant);
    if (!queue) {
      queue = { receipts: [], takes: [] };
      this.waiting.set(tenant, queue);
      // The batch is everyone's work: the first caller going away must not cancel it.
      detachedFromCall(() => withTenant(tenant, () => this.drain(tenant)));
    }
    return queue;
  }

  /** Writes the tenant's waiting receipts and permits batch after batch until none is left. */
  private async drain(tenant: string): Promise<void> {
    // Items arriving during this tick join the first batch.
    await Promise.resolve();
    for (;;) {
      const queue = this.waiting.get(tenant)!;
      const batch = queue.receipts.splice(0, MAX_BATCH);
      let permits = 0;
      let t = 0;
      while (t < queue.takes.length && permits + queue.takes[t]!.args[0].length <= MAX_BATCH)
        permits += queue.takes[t++]!.args[0].length;
      const takes = queue.takes.splice(0, Math.max(t, 1));
      if (!batch.length && !takes.length) {
        this.waiting.delete(tenant);
        return;
      }
      try {
        await this.write(tenant, batch, takes);
      } catch (err) {
        if (batch.length === 1 || !refusedData(err)) {
          for (const w of batch) w.reject(err);
          continue;
        }
        // One receipt Postgres refuses (a NUL in a field) fails its whole statement: the others of
        // the batch are not to be lost with it, so each is written alone and fails only itself.
        for (const w of batch) await this.write(tenant, [w], []).catch((one) => w.reject(one));
      }
    }
  }

  /**
   * One batch: the receipts in the log (one statement, or the locked transaction) and the permits
   * taken, in one statement when both wait and the edge is known. The permits' waiters are answered
   * here; an error of the receipts' part is thrown, for {@link drain} to sort out.
   */
  private async write(tenant: string, batch: readonly Waiting[], takes: readonly WaitingTake[]): Promise<void> {
    // One receipt per request id in a batch (a retried Batch may carry it twice).
    const rows = [...new Map(batch.map((w) => [w.row.requestId, w.row])).values()];
    const take = takes.length ? joinTakes(takes) : undefined;
    const edge = this.edges.get(tenant);
    let taking: Promise<void> | undefined;
    let done: { indexes: Map<string, number>; after: Edge } | null = null;
    if (take && rows.length && edge) {
      try {
        const both = await appendTakingAt(this.pool, edge, rows, take);
        answerTakes(takes, both.taken, take.args[5].getTime());
        done = both.appended;
      } catch (err) {
        // The statement is undone whole: the permits are taken alone, the receipts under the lock.
        if (!refusedData(err)) {
          this.edges.delete(tenant);
          for (const w of takes) w.reject(err);
          throw err;
        }
        taking = this.takeAlone(tenant, takes, take);
      }
    } else if (take) taking = this.takeAlone(tenant, takes, take);
    if (!rows.length) {
      await taking;
      return;
    }
    try {
      done ??=
        (edge && !take && (await fastBatch(this.pool, tenant, edge, rows))) ||
        (await lockedBatch(this.pool, tenant, rows));
      this.edges.delete(tenant);
      if (this.edges.size >= MAX_EDGES) this.edges.clear();
      this.edges.set(tenant, done.after);
      for (const w of batch) w.resolve(done.indexes.get(w.row.requestId)!);
    } catch (err) {
      this.edges.delete(tenant);
      throw err;
    } finally {
      await taking;
    }
  }

  /**
   * The waiting permits in one consume of their own, each Batch call answered. When Postgres refuses
   * a value (a NUL in a run id), the calls' permits are taken call by call, so the refused value
   * fails only the permits of the Batch call that sent it, as before they waited together.
   */
  private async takeAlone(tenant: string, takes: readonly WaitingTake[], take: { args: TakeArgs }): Promise<void> {
    const consume = async (args: TakeArgs) =>
      (await takePermits(this.pool, tenant, ...args)).map((r) => ({ ord: Number(r.ord), id: r.id }));
    try {
      answerTakes(takes, await consume(take.args), take.args[5].getTime());
    } catch (err) {
      if (takes.length === 1 || !refusedData(err)) {
        for (const w of takes) w.reject(err);
        return;
      }
      for (const w of takes)
        await consume(w.args).then(
          (taken) => w.resolve({ taken, now: w.args[5].getTime() }),
          (one: unknown) => w.reject(one),
        );
    }
  }
}

/** Several Batch calls' permits as one consume: their arguments end to end, taken at the latest time. */
function joinTakes(takes: readonly WaitingTake[]): { args: TakeArgs } {
  if (takes.length === 1) return takes[0]!;
  const now = new Date(Math.max(...takes.map((w) => w.args[5].getTime())));
  const column = (k: 0 | 1 | 2 | 3 | 4) => takes.flatMap((w) => w.args[k]);
  return { args: [column(0), column(1), column(2), column(3), column(4), now] };
}

/** Each Batch call's permits from the joined consume's rows (their ordinals back to its own). */
function answerTakes(takes: readonly WaitingTake[], taken: readonly TakenPermit[], now: number): void {
  let offset = 0;
  for (const w of takes) {
    const n = w.args[0].length;
    const own = taken
      .filter((r) => r.ord > offset && r.ord <= offset + n)
      .map((r) => ({ ord: r.ord - offset, id: r.id }));
    w.resolve({ taken: own, now });
    offset += n;
  }
}

/** Whether Postgres refused the values (data exception or constraint, SQLSTATE class 22 or 23), not the connection. */
function refusedData(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === "string" && (code.startsWith("22") || code.startsWith("23"));
}
