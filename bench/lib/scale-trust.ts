/**
 * @module bench/lib/scale-trust
 * The `receipts` part of `npm run bench -- --scale`: the trust service's receipt log (one tenant's,
 * O(log n) stored subtree hashes, services/trust/src/log-nodes.ts) at growing sizes. The trust
 * service runs in this process on the one-service harness (real Postgres, its own login under
 * row-level security); each sample calls the service's own functions, as its RPCs and trust.status do:
 *
 *  - `receipt.append`: `recordReceipt` (sign the DSSE envelope, append through the group-commit
 *    appender, log-append.ts), one at a time, so each is its own batch;
 *  - `receipt.proof`: `receiptViews` for one receipt drawn at random from the whole log: the signed
 *    checkpoint of the current size, the receipt row and its inclusion proof;
 *  - `receipt.consistency`: `currentCheckpoint` and `consistencyFrom` a random earlier size.
 *
 * Seeding is bulk SQL: receipts with a canonical-JSON envelope whose RFC 6962 leaf hash Postgres
 * computes (`sha256(0x00 ‖ envelope)`) and stores in `leaf_hash` (the leaves the service reads), then every complete subtree level by level
 * (`sha256(0x01 ‖ left ‖ right)`), the way the log_nodes migration builds them; each size tops up the
 * log the previous one left. At each size one inclusion proof and the consistency proof from the
 * previous size's checkpoint are verified against the signed checkpoints, so a seed that hashed
 * anything wrong fails the run instead of timing a broken log.
 */
import type pg from "pg";
import { canonicalJson, withTenant } from "@gantry/kit";
import { startService } from "../../infra/testing/service.ts";
import type { Context } from "../../services/trust/src/context.ts";
import { consistencyFrom, currentCheckpoint } from "../../services/trust/src/checkpoints.ts";
import { leafHash, nodesRead, verifyConsistency, verifyInclusion } from "../../services/trust/src/merkle.ts";
import { receiptViews, recordReceipt } from "../../services/trust/src/receipts.ts";
import { openCheckpoint } from "../../services/trust/src/signing.ts";
import type { ScaleCurve, ScaleOptions, ScalePoint } from "./scale-curve.ts";
import { timeSamples } from "./scale-timing.ts";

const TENANT = "bench-scale-receipts";
const SAMPLES = 200;
const WARMUP = 30;
/** Receipts inserted per statement while seeding. */
const SEED_CHUNK = 100_000;

/** Appends receipts [from, to) and the subtree hashes they complete; the log's size becomes `to`. */
async function seedLog(db: pg.Pool, from: number, to: number): Promise<void> {
  for (let start = from; start < to; start += SEED_CHUNK) {
    const end = Math.min(to, start + SEED_CHUNK);
    // Keys in canonical order (payload < payloadType < signatures), no spaces: canonicalJson's output.
    await db.query(
      `WITH e AS (
         SELECT g, format('{"payload":"%s","payloadType":"application/vnd.in-toto+json","signatures":[]}',
                          encode(convert_to('seeded receipt ' || g, 'UTF8'), 'base64')) AS env
           FROM generate_series($2::int, $3::int - 1) g)
       INSERT INTO trust.receipts (request_id, tenant, run_id, ability, input_hash, outcome, status, at, envelope, leaf_hash, log_index)
       SELECT 'req_seed' || g, $1, 'run_seed', 'contact.get', encode(sha256(convert_to(env, 'UTF8')), 'hex'),
              'succeeded', 200, now(), env::jsonb, encode(sha256('\\x00'::bytea || convert_to(env, 'UTF8')), 'hex'), g
         FROM e`,
      [TENANT, start, end],
    );
  }
  // Statistics as autovacuum would keep them: planned for an empty table, the joins below (and the
  // service's own reads) scan the whole table per row.
  await db.query(`ANALYZE trust.receipts, trust.log_nodes`);
  for (let level = 0; 2 ** (level + 1) <= to; level++) {
    // Parents of the pairs the new leaves completed: from the first pair touching `from`.
    const first = Math.floor(from / 2 ** level) & ~1;
    // The leaves (level 0) are the receipts' own leaf_hash, as the service reads them; log_nodes
    // holds levels 1 and up.
    const children =
      level === 0
        ? `(SELECT tenant, 0 AS level, log_index AS idx, decode(leaf_hash, 'hex') AS hash FROM trust.receipts WHERE tenant = $1)`
        : "trust.log_nodes";
    await db.query(
      `INSERT INTO trust.log_nodes (tenant, level, idx, hash)
       SELECT a.tenant, a.level + 1, a.idx / 2, sha256('\\x01'::bytea || a.hash || b.hash)
         FROM ${children} a JOIN ${children} b ON b.tenant = a.tenant AND b.level = a.level AND b.idx = a.idx + 1
        WHERE a.tenant = $1 AND a.level = $2 AND a.idx >= $3 AND a.idx % 2 = 0
       ON CONFLICT DO NOTHING`,
      [TENANT, level, first],
    );
    // The level just written is the next statement's input: planned as empty, its self-join
    // would scan the level once per row.
    await db.query(`ANALYZE trust.log_nodes`);
  }
  await db.query(
    `INSERT INTO trust.logs (tenant, size) VALUES ($1, $2) ON CONFLICT (tenant) DO UPDATE SET size = EXCLUDED.size`,
    [TENANT, to],
  );
  await db.query(`ANALYZE trust.log_nodes`);
}

async function logSize(db: pg.Pool): Promise<number> {
  const { rows } = await db.query<{ size: number }>(`SELECT size FROM trust.logs WHERE tenant = $1`, [TENANT]);
  return rows[0]?.size ?? 0;
}

/** Throws unless receipt `index`'s inclusion proof, and the consistency proof from `kept`, verify against signed checkpoints. */
async function checkProofs(
  s: { ctx: Context; db: pg.Pool },
  index: number,
  kept: { size: number; note: string } | undefined,
) {
  const ctx = s.ctx;
  const [requestId] = await idsAt(s.db, [index]);
  const view = (await withTenant(TENANT, () => receiptViews(ctx, TENANT, [requestId]))).get(requestId);
  const inc = view?.inclusion;
  if (!view || !inc) throw new Error(`receipt ${requestId} has no inclusion proof`);
  const cp = openCheckpoint(inc.checkpoint, ctx.keys.publicKeys);
  if (!cp.ok || cp.size !== inc.treeSize) throw new Error(`the checkpoint of size ${inc.treeSize} does not verify`);
  const leaf = leafHash(canonicalJson(view.envelope));
  const path = inc.hashes.map((h) => Buffer.from(h, "hex"));
  if (!verifyInclusion(inc.logIndex, inc.treeSize, leaf, path, cp.root))
    throw new Error(`the inclusion proof of receipt ${index} at size ${inc.treeSize} does not verify`);
  if (kept) {
    const old = openCheckpoint(kept.note, ctx.keys.publicKeys);
    const signed = await withTenant(TENANT, () => currentCheckpoint(ctx, TENANT));
    const proof = (await withTenant(TENANT, () => consistencyFrom(signed, kept.size, "/logFromSize"))).map((h) =>
      Buffer.from(h, "hex"),
    );
    if (!old.ok || !verifyConsistency(kept.size, signed.tree.size, old.root, cp.root, proof))
      throw new Error(`the log at ${signed.tree.size} is not consistent with its checkpoint at ${kept.size}`);
  }
  return { size: inc.treeSize, note: inc.checkpoint };
}

/** The request ids of the receipts at these log indexes, in order (seeded and appended ones interleave by size). */
async function idsAt(db: pg.Pool, indexes: number[]): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT r.request_id AS id FROM unnest($2::int[]) WITH ORDINALITY AS x(i, o)
       JOIN trust.receipts r ON r.tenant = $1 AND r.log_index = x.i ORDER BY x.o`,
    [TENANT, indexes],
  );
  if (rows.length !== indexes.length) throw new Error(`the log lacks receipts at some of ${indexes.length} indexes`);
  return rows.map((r) => r.id);
}

/** A deterministic spread of indexes over [0, n) (a multiplicative walk, so samples hit every part of the log). */
const spread = (i: number, n: number) => Math.floor((((i * 2654435761) % 2 ** 32) / 2 ** 32) * n);

export async function receiptsScale(opts: ScaleOptions): Promise<ScaleCurve[]> {
  const s = await startService<Context>("trust");
  const append: ScalePoint[] = [];
  const proof: ScalePoint[] = [];
  const consistency: ScalePoint[] = [];
  try {
    const ctx = s.ctx;
    let kept: { size: number; note: string } | undefined;
    let appended = 0;
    for (const n of opts.sizes) {
      const have = await logSize(s.db);
      const t = performance.now();
      if (have < n) await seedLog(s.db, have, n);
      const seedSec = (performance.now() - t) / 1000;
      opts.log(`receipts ${n}: seeded ${n - have} receipts and their subtree hashes in ${seedSec.toFixed(1)} s`);
      kept = await checkProofs(s, spread(n, n), kept);
      const size = kept.size;
      // Rows read for one proof: what O(log n) means here.
      const pathNodes = nodesRead(size, (tr) => tr.path(spread(7, size))).length;
      const ids = await idsAt(
        s.db,
        Array.from({ length: SAMPLES + WARMUP }, (_, i) => spread(i + 1, size)),
      );
      const time = (op: (i: number) => Promise<unknown>, extra?: Record<string, number>) =>
        timeSamples(size, "ms", SAMPLES, WARMUP, op, extra);
      proof.push(
        await time(
          async (i) => {
            const views = await withTenant(TENANT, () => receiptViews(ctx, TENANT, [ids[i]]));
            if (!views.get(ids[i])?.inclusion) throw new Error(`no inclusion proof for ${ids[i]}`);
          },
          { seedSec, nodesRead: pathNodes },
        ),
      );
      consistency.push(
        await time(
          async (i) => {
            const signed = await withTenant(TENANT, () => currentCheckpoint(ctx, TENANT));
            return withTenant(TENANT, () => consistencyFrom(signed, 1 + spread(i + 1, size - 1), "/logFromSize"));
          },
          { nodesRead: nodesRead(size, (tr) => tr.consistency(1 + spread(7, size - 1))).length },
        ),
      );
      append.push(
        await time(() => {
          const requestId = `req_append${++appended}`;
          return withTenant(TENANT, () =>
            recordReceipt(ctx, {
              tenant: TENANT,
              requestId,
              runId: "run_bench",
              permitId: null,
              ability: "contact.get",
              inputHash: "0".repeat(64),
              resultHash: "1".repeat(64),
              status: 200,
              at: new Date(),
            }),
          );
        }),
      );
      const last = opts.sizes.at(-1)!;
      opts.log(
        `receipts ${n}: proof p50 ${proof.at(-1)!.p50.toFixed(2)} ms, consistency p50 ${consistency.at(-1)!.p50.toFixed(2)} ms, append p50 ${append.at(-1)!.p50.toFixed(2)} ms` +
          (n === last ? "" : " (log kept for the next size)"),
      );
    }
    // The appended receipts, at the end of the log, prove too.
    await checkProofs(s, (await logSize(s.db)) - 1, kept);
  } finally {
    await s.stop();
  }
  const how =
    "The trust service in this process (one-service harness: real Postgres, its own login under row-level security); one tenant's log seeded in bulk SQL with valid RFC 6962 leaf and subtree hashes, one inclusion and one consistency proof verified against the signed checkpoints at each size.";
  return [
    {
      id: "receipt.append",
      label: "receipt append",
      unit: "ms",
      note: `${how} Each sample is \`recordReceipt\`: the DSSE envelope signed (Ed25519) and appended through the group-commit appender, one at a time (a batch of one: one compare-and-swap statement inserting the receipt, the O(log n) nodes it completes and the size). ${SAMPLES} samples after ${WARMUP} untimed.`,
      expected: "O(log n)",
      points: append,
    },
    {
      id: "receipt.proof",
      label: "receipt inclusion proof",
      unit: "ms",
      note: `${how} Each sample is \`receiptViews\` for one receipt spread over the whole log (what trust.status does per receipt): the log's head and last checkpoint, the receipt row, and its audit path from the stored subtree hashes (\`nodesRead\`: rows it reads). ${SAMPLES} samples after ${WARMUP} untimed; \`seedSec\`: time to top the log up to this size.`,
      expected: "O(log n)",
      points: proof,
    },
    {
      id: "receipt.consistency",
      label: "receipt consistency proof",
      unit: "ms",
      note: `${how} Each sample is \`currentCheckpoint\` and \`consistencyFrom\` a random earlier size (trust.status with \`logFromSize\`). ${SAMPLES} samples after ${WARMUP} untimed.`,
      expected: "O(log n)",
      points: consistency,
    },
  ];
}
