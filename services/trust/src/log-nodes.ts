/**
 * @module trust/log-nodes
 * A tenant's receipt log as Postgres holds it: the hash of every perfect subtree (level k, idx i is
 * the MTH of leaves [i·2^k, (i+1)·2^k)) and the size (`logs`). The leaves (level 0) are the receipts'
 * own `leaf_hash`, read by `(tenant, log_index)`; `log_nodes` holds levels 1 and up, so an append
 * writes each leaf once. A root, an audit
 * path or a consistency proof reads O(log n) of those rows, fetched in one query for everything an
 * answer needs; nothing of the tree is kept in the process between calls, so any replica answers
 * from the database alone and a restart reads nothing back.
 */
import type pg from "pg";
import { preparedQuery } from "@gantry/kit";
import { type NodeKey, NodeTree, nodesRead } from "./merkle.ts";

const nodesByKey = preparedQuery<{ level: number; idx: number; hash: Buffer }, [string, number[], number[]]>(
  "trust.log_nodes_by_key",
  `SELECT n.level, n.idx, n.hash FROM trust.log_nodes n
     JOIN unnest($2::int[], $3::int[]) AS k(level, idx) ON n.level = k.level AND n.idx = k.idx
    WHERE n.tenant = $1 AND k.level > 0
   UNION ALL
   SELECT 0, r.log_index, decode(r.leaf_hash, 'hex') FROM trust.receipts r
     JOIN unnest($2::int[], $3::int[]) AS k(level, idx) ON k.level = 0 AND r.log_index = k.idx
    WHERE r.tenant = $1`,
);

export const keyOf = (level: number, idx: number) => `${level}/${idx}`;

/** Reads the nodes `keys` of the tenant's log, by {@link keyOf}. */
export async function readNodes(pool: pg.Pool, tenant: string, keys: readonly NodeKey[]): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  if (!keys.length) return out;
  const rows = await nodesByKey(
    pool,
    tenant,
    keys.map((k) => k.level),
    keys.map((k) => k.idx),
  );
  for (const r of rows) out.set(keyOf(r.level, r.idx), r.hash);
  return out;
}

/**
 * The tenant's log at `size` leaves, over the nodes loaded so far: `load` fetches what the given
 * operations need (one query), then those operations run synchronously. Reading a node not loaded,
 * or one the database lacks, throws: a gap is never filled with a made-up hash.
 */
export class StoredTree extends NodeTree {
  private readonly nodes = new Map<string, Buffer>();
  private readonly pool: pg.Pool;
  readonly tenant: string;

  constructor(pool: pg.Pool, tenant: string, size: number) {
    super(size);
    this.pool = pool;
    this.tenant = tenant;
  }

  async load(use: (tree: NodeTree) => void): Promise<this> {
    const missing = nodesRead(this.size, use).filter((k) => !this.nodes.has(keyOf(k.level, k.idx)));
    for (const [k, hash] of await readNodes(this.pool, this.tenant, missing)) this.nodes.set(k, hash);
    return this;
  }

  protected node(level: number, idx: number): Buffer {
    const hash = this.nodes.get(keyOf(level, idx));
    if (!hash) throw new Error(`node ${level}/${idx} of the log of ${this.tenant} (size ${this.size}) is not stored`);
    return hash;
  }
}
