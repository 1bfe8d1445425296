/**
 * @module trust/log-append
 * Appending receipts to a tenant's log with group commit: the receipts of one tenant that arrive
 * while a batch of that tenant is being written wait and go together in the next batch, one
 * transaction each. A batch takes the tenant's `logs` row lock with its first statement (which also
 * reads the size, the right edge of the tree and which of the request ids are receipts already),
 * writes the receipts at the next indexes, the O(k + log n) nodes they add, and the new size, and
 * commits: the lock is held for one transaction per batch, never across a caller's round trips, and
 * replicas appending for the same tenant take turns per batch. Each receipt is in the log (indexed,
 * its nodes stored) before its RecordReceipt answers.
 */
import type pg from "pg";
import { detachedFromCall, inTransaction, withTenant } from "@gantry/kit";
import { appendNodes, frontierOf } from "./merkle.ts";
import { keyOf } from "./log-nodes.ts";

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
  envelope: object;
  leaf: Buffer;
}

interface Waiting {
  row: ReceiptRow;
  resolve: (logIndex: number) => void;
  reject: (err: unknown) => void;
}

/** More than this many waiting receipts of a tenant go in several batches (bounded statements). */
const MAX_BATCH = 500;

async function writeBatch(pool: pg.Pool, tenant: string, rows: readonly ReceiptRow[]): Promise<Map<string, number>> {
  return inTransaction(pool, async (c) => {
    const [head] = (
      await c.query<{
        size: number;
        frontier: { level: number; idx: number; hash: string }[] | null;
        existing: [string, number][] | null;
      }>(
        `WITH l AS (
           INSERT INTO trust.logs (tenant, size) VALUES ($1, 0)
           ON CONFLICT (tenant) DO UPDATE SET size = logs.size RETURNING size)
         SELECT l.size,
           (SELECT json_agg(json_build_object('level', n.level, 'idx', n.idx, 'hash', encode(n.hash, 'hex')))
              FROM trust.log_nodes n, generate_series(0, 30) g
             WHERE n.tenant = $1 AND n.level = g AND n.idx = (l.size >> g) - 1 AND ((l.size >> g) & 1) = 1) AS frontier,
           (SELECT json_agg(json_build_array(r.request_id, r.log_index))
              FROM trust.receipts r WHERE r.request_id = ANY($2::text[]) AND r.tenant = $1) AS existing
         FROM l`,
        [tenant, rows.map((r) => r.requestId)],
      )
    ).rows as [
      {
        size: number;
        frontier: { level: number; idx: number; hash: string }[] | null;
        existing: [string, number][] | null;
      },
    ];
    const out = new Map<string, number>(head.existing ?? []);
    const fresh: ReceiptRow[] = [];
    for (const r of rows) if (!out.has(r.requestId) && !fresh.some((f) => f.requestId === r.requestId)) fresh.push(r);
    if (!fresh.length) return out;
    const frontier = new Map((head.frontier ?? []).map((n) => [keyOf(n.level, n.idx), Buffer.from(n.hash, "hex")]));
    if (frontier.size !== frontierOf(head.size).length)
      throw new Error(`the log of ${tenant} lacks nodes of its right edge at size ${head.size}`);
    const nodes = appendNodes(
      head.size,
      frontier,
      fresh.map((r) => r.leaf),
    );
    for (const [i, r] of fresh.entries()) out.set(r.requestId, head.size + i);
    await c.query(
      `WITH r AS (
         INSERT INTO trust.receipts (request_id, tenant, run_id, permit_id, ability, input_hash, result_hash,
                                     outcome, status, at, envelope, leaf_hash, log_index)
         SELECT x.request_id, $1, x.run_id, x.permit_id, x.ability, x.input_hash, x.result_hash,
                x.outcome, x.status, x.at, x.envelope, x.leaf_hash, x.log_index
           FROM jsonb_to_recordset($2::jsonb) AS x(request_id text, run_id text, permit_id text, ability text,
                input_hash text, result_hash text, outcome text, status int, at timestamptz, envelope jsonb,
                leaf_hash text, log_index int)),
       n AS (
         INSERT INTO trust.log_nodes (tenant, level, idx, hash)
         SELECT $1, u.level, u.idx, decode(u.hash, 'hex') FROM unnest($3::int[], $4::int[], $5::text[]) AS u(level, idx, hash))
       UPDATE trust.logs SET size = $6 WHERE tenant = $1`,
      [
        tenant,
        JSON.stringify(
          fresh.map((r, i) => ({
            request_id: r.requestId,
            run_id: r.runId,
            permit_id: r.permitId,
            ability: r.ability,
            input_hash: r.inputHash,
            result_hash: r.resultHash,
            outcome: r.outcome,
            status: r.status,
            at: r.at.toISOString(),
            envelope: r.envelope,
            leaf_hash: r.leaf.toString("hex"),
            log_index: head.size + i,
          })),
        ),
        nodes.map((n) => n.level),
        nodes.map((n) => n.idx),
        nodes.map((n) => n.hash.toString("hex")),
        head.size + fresh.length,
      ],
    );
    return out;
  });
}

/** The per-process queues of receipts waiting for their tenant's next batch. */
export class LogAppender {
  private readonly waiting = new Map<string, Waiting[]>();
  private readonly pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.pool = pool;
  }

  /** Appends the receipt (or finds the one already recorded for its request id); its log index. */
  append(row: ReceiptRow): Promise<number> {
    return new Promise((resolve, reject) => {
      const queue = this.waiting.get(row.tenant);
      if (queue) {
        queue.push({ row, resolve, reject });
        return;
      }
      this.waiting.set(row.tenant, [{ row, resolve, reject }]);
      // The batch is everyone's work: the first caller going away must not cancel it.
      detachedFromCall(() => withTenant(row.tenant, () => this.drain(row.tenant)));
    });
  }

  /** Writes the tenant's waiting receipts batch after batch until none is left. */
  private async drain(tenant: string): Promise<void> {
    // Receipts arriving during this tick join the first batch.
    await Promise.resolve();
    for (;;) {
      const queue = this.waiting.get(tenant)!;
      const batch = queue.splice(0, MAX_BATCH);
      if (!batch.length) {
        this.waiting.delete(tenant);
        return;
      }
      try {
        const indexes = await writeBatch(
          this.pool,
          tenant,
          batch.map((w) => w.row),
        );
        for (const w of batch) w.resolve(indexes.get(w.row.requestId)!);
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
  }
}
