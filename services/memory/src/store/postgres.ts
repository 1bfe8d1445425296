/**
 * @module memory/store/postgres
 * The default vector store: Postgres (the memory service's schema) is the source of truth and every
 * replica keeps the partitions it serves as in-memory matrices ({@link Partition}) for exact search
 * in milliseconds, with no pgvector.
 *
 * Coherence across replicas:
 *  - every write to a partition runs in one transaction that locks the partition's
 *    `memory_collections` row and bumps its `version`; before deciding anything (near-duplicates,
 *    filter deletes) the writer brings its matrix to that version (reloading it if it is behind), so
 *    writes are exact whatever the other replicas did;
 *  - after the commit the writer patches its own matrix and publishes a notice on core NATS
 *    (`memory.partition.changed`: tenant, collection, version, upserted ids, deleted ids); a replica
 *    holding version − 1 applies the patch (fetching the upserted rows), any other replica holding the
 *    partition drops it and reloads it on next use;
 *  - a replica that reconnects to NATS drops every partition (notices may have been missed), and a
 *    periodic check (`MEMORY_CACHE_CHECK_MS`, default 30 s) drops partitions whose version moved
 *    without a notice. Reads on another replica therefore lag a write by one NATS hop (about a
 *    millisecond), never more than the check interval.
 *
 * Partitions are loaded lazily on first use (one REPEATABLE READ snapshot) and evicted least
 * recently used beyond `MEMORY_CACHE_MB`.
 *
 * Tenant scope (row-level security, kit/tenancy.ts): loads and writes run in the scope of the call
 * that needs them, whose tenant is the partition's; the notice handler and the version check serve
 * every tenant and run in system scope. A partition load is shared only by callers of the same
 * (tenant, collection), so it never runs in another tenant's scope.
 */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import {
  GantryError,
  SUBJECTS,
  asSystem,
  decodeJson,
  encodeJson,
  inTransaction,
  type Logger,
  type Nats,
} from "@gantry/kit";
import type { FilterNode, Metadata } from "../filter.ts";
import { bytesToVector, DIMENSIONS, vectorToBuffer } from "../embed/types.ts";
import { Partition, type PartitionRow } from "./partition.ts";
import { planSave } from "./save-plan.ts";
import { mixedModels } from "./refusals.ts";
import type { Hit, PartitionInfo, SaveRequest, SaveResult, SearchOptions, StoredMemory, VectorStore } from "./types.ts";
import { KeyedLock } from "./keyed-lock.ts";

export interface PostgresStoreOptions {
  pool: pg.Pool;
  log: Logger;
  /** Without NATS the store is correct for a single replica only. */
  nats?: Nats;
  /** Budget for in-memory partitions (default 1 GiB). */
  cacheBytes?: number;
  /** Version check of cached partitions (default 30 s; 0 disables). */
  checkIntervalMs?: number;
}

export interface PartitionNotice {
  tenant: string;
  collection: string;
  version: number;
  upserted: string[];
  deleted: string[];
  /** The whole partition changed (re-embedding): drop it. */
  reload?: boolean;
  origin: string;
}

interface MemoryRowSql {
  id: string;
  collection: string;
  text: string;
  metadata: Metadata;
  vertical: string | null;
  vector?: Buffer;
  model: string;
  dimensions: number;
  created_at: Date;
  updated_at: Date;
}

interface WriteOutcome<T> {
  result: T;
  commit: boolean;
  after?: (part: Partition) => Omit<PartitionNotice, "origin" | "tenant" | "collection" | "version"> | undefined;
}

/** Every column of a memory but its vector. */
const FIELDS = `id, collection, text, metadata, vertical, model, dimensions, created_at, updated_at`;
const COLUMNS = `${FIELDS}, vector`;

function toMemory(r: MemoryRowSql): StoredMemory {
  return {
    id: r.id,
    collection: r.collection,
    text: r.text,
    metadata: r.metadata ?? {},
    vertical: r.vertical,
    model: r.model,
    dimensions: r.dimensions,
    createdAt: r.created_at.getTime(),
    updatedAt: r.updated_at.getTime(),
  };
}

function toRow(r: MemoryRowSql): PartitionRow {
  return { ...toMemory(r), vector: bytesToVector(r.vector!) };
}

function keyOf(tenant: string, collection: string): string {
  return `${tenant}\u0000${collection}`;
}

export class PostgresStore implements VectorStore {
  readonly name = "postgres" as const;
  private readonly pool: pg.Pool;
  private readonly log: Logger;
  private readonly nats?: Nats;
  private readonly cacheBytes: number;
  private readonly checkIntervalMs: number;
  private readonly origin = randomUUID();
  private readonly cache = new Map<string, Partition>();
  private readonly loading = new Map<string, Promise<Partition>>();
  /** Highest notice version seen for a partition while it was loading. */
  private readonly noticedWhileLoading = new Map<string, number>();
  /** One write at a time per partition within this process. */
  private readonly partitionLock = new KeyedLock();
  private timer?: NodeJS.Timeout;
  private closed = false;

  constructor(opts: PostgresStoreOptions) {
    this.pool = opts.pool;
    this.log = opts.log;
    this.nats = opts.nats;
    this.cacheBytes = opts.cacheBytes ?? 1024 * 1024 * 1024;
    this.checkIntervalMs = opts.checkIntervalMs ?? 30_000;
  }

  async start(): Promise<void> {
    if (this.nats) {
      const { nc } = this.nats;
      nc.subscribe(SUBJECTS.memoryPartitionChanged, {
        callback: (err, msg) => {
          if (err) return;
          let notice: PartitionNotice;
          try {
            notice = decodeJson<PartitionNotice>(msg.data);
          } catch {
            return;
          }
          // Notices concern any tenant and arrive outside any call: system scope, explicitly (a
          // callback's async context is wherever the NATS connection happened to be created).
          asSystem(() => this.onNotice(notice)).catch((e) =>
            this.log.warn({ err: String(e) }, "partition notice not applied; dropping the partition"),
          );
        },
      });
      (async () => {
        for await (const s of nc.status()) {
          if (s.type === "reconnect") {
            this.log.info(
              { partitions: this.cache.size },
              "nats reconnected: dropping cached partitions (notices may have been missed)",
            );
            this.cache.clear();
          }
        }
      })().catch(() => {});
    }
    if (this.checkIntervalMs > 0) {
      this.timer = setInterval(() => {
        // Checks the cached partitions of every tenant: system scope, whoever called start().
        asSystem(() => this.checkVersions()).catch((err) =>
          this.log.warn({ err: String(err) }, "partition version check failed"),
        );
      }, this.checkIntervalMs);
      this.timer.unref();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.cache.clear();
  }

  /** Number of cached partitions (tests, metrics). */
  get cachedPartitions(): number {
    return this.cache.size;
  }

  private async load(tenant: string, collection: string): Promise<Partition> {
    const key = keyOf(tenant, collection);
    for (let attempt = 0; ; attempt++) {
      this.noticedWhileLoading.set(key, -1);
      const part = await inTransaction(
        this.pool,
        async (client) => {
          const c = await client.query<{ model: string; dimensions: number; version: string }>(
            `SELECT model, dimensions, version FROM memory.memory_collections WHERE tenant = $1 AND name = $2`,
            [tenant, collection],
          );
          if (c.rows.length === 0) return new Partition(collection, "", DIMENSIONS, 0);
          const { rows } = await client.query<MemoryRowSql>(
            `SELECT ${COLUMNS} FROM memory.memories WHERE tenant = $1 AND collection = $2`,
            [tenant, collection],
          );
          const loaded = new Partition(
            collection,
            c.rows[0].model,
            c.rows[0].dimensions,
            Number(c.rows[0].version),
            rows.length,
          );
          for (const r of rows) loaded.upsert(toRow(r));
          return loaded;
        },
        "ISOLATION LEVEL REPEATABLE READ READ ONLY",
      );
      const noticed = this.noticedWhileLoading.get(key) ?? -1;
      this.noticedWhileLoading.delete(key);
      if (noticed > part.version && attempt < 3) continue;
      return part;
    }
  }

  /** The cached partition, loading it once if needed. */
  private async partition(tenant: string, collection: string): Promise<Partition> {
    const key = keyOf(tenant, collection);
    const cached = this.cache.get(key);
    if (cached) {
      cached.lastUsed = Date.now();
      return cached;
    }
    let pending = this.loading.get(key);
    if (!pending) {
      pending = this.load(tenant, collection).then(
        (part) => {
          this.loading.delete(key);
          if (!this.closed) {
            this.cache.set(key, part);
            this.evict();
          }
          return part;
        },
        (err) => {
          this.loading.delete(key);
          throw err;
        },
      );
      this.loading.set(key, pending);
    }
    return pending;
  }

  /** The partition at exactly `version` (called with the partition row locked, so a fresh load sees it). */
  private async current(tenant: string, collection: string, version: number): Promise<Partition> {
    const key = keyOf(tenant, collection);
    const cached = this.cache.get(key);
    if (cached && cached.version === version) {
      cached.lastUsed = Date.now();
      return cached;
    }
    const part = await this.load(tenant, collection);
    if (part.version !== version)
      throw new Error(`partition ${tenant}/${collection} loaded at version ${part.version}, expected ${version}`);
    if (!this.closed) {
      this.cache.set(key, part);
      this.evict();
    }
    return part;
  }

  private evict(): void {
    let total = 0;
    for (const p of this.cache.values()) total += p.bytes;
    if (total <= this.cacheBytes) return;
    const byAge = [...this.cache.entries()].sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    for (const [key, p] of byAge) {
      if (total <= this.cacheBytes || this.cache.size <= 1) break;
      this.cache.delete(key);
      total -= p.bytes;
    }
  }

  private async onNotice(n: PartitionNotice): Promise<void> {
    if (n.origin === this.origin) return;
    const key = keyOf(n.tenant, n.collection);
    if (this.noticedWhileLoading.has(key))
      this.noticedWhileLoading.set(key, Math.max(this.noticedWhileLoading.get(key) ?? -1, n.version));
    await this.partitionLock.run(key, async () => {
      const part = this.cache.get(key);
      if (!part || part.version >= n.version) return;
      if (n.reload || part.version !== n.version - 1) {
        this.cache.delete(key);
        return;
      }
      if (n.upserted.length) {
        const { rows } = await this.pool.query<MemoryRowSql>(
          `SELECT ${COLUMNS} FROM memory.memories WHERE tenant = $1 AND collection = $2 AND id = ANY($3::text[])`,
          [n.tenant, n.collection, n.upserted],
        );
        const found = new Set(rows.map((r) => r.id));
        for (const r of rows) part.upsert(toRow(r));
        for (const id of n.upserted) if (!found.has(id)) part.remove(id);
      }
      for (const id of n.deleted) part.remove(id);
      if (this.cache.get(key) === part) part.version = n.version;
    });
  }

  private publish(n: Omit<PartitionNotice, "origin">): void {
    if (!this.nats) return;
    try {
      this.nats.nc.publish(SUBJECTS.memoryPartitionChanged, encodeJson({ ...n, origin: this.origin }));
    } catch (err) {
      this.log.warn(
        { err: String(err), tenant: n.tenant, collection: n.collection },
        "partition notice not published; other replicas catch up at their next version check",
      );
    }
  }

  private async checkVersions(): Promise<void> {
    if (this.cache.size === 0) return;
    const entries = [...this.cache.entries()];
    const { rows } = await this.pool.query<{ tenant: string; name: string; version: string }>(
      `SELECT tenant, name, version FROM memory.memory_collections c
        WHERE (tenant, name) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
      [entries.map(([key]) => key.slice(0, key.indexOf("\u0000"))), entries.map(([, p]) => p.collection)],
    );
    const versions = new Map(rows.map((r) => [keyOf(r.tenant, r.name), Number(r.version)]));
    for (const [key, p] of entries) {
      const v = versions.get(key) ?? 0;
      if (v !== p.version && this.cache.get(key) === p) {
        this.log.info(
          { partition: key.replace("\u0000", "/"), cached: p.version, current: v },
          "partition changed without a notice; dropping it",
        );
        this.cache.delete(key);
      }
    }
  }

  /**
   * Runs a write on one partition: in-process exclusive, one transaction, the partition row locked
   * (created first when `create` is given; when it does not exist and is not created, `absent` is
   * the answer), the cached matrix brought to the locked version. After the commit, `after` patches
   * the matrix and names the change for the notice.
   */
  private write<T>(
    tenant: string,
    collection: string,
    opts: { create?: { model: string; dimensions: number }; absent: T },
    fn: (ctx: {
      client: pg.PoolClient;
      part: Partition;
      row: { model: string; dimensions: number; version: number };
    }) => Promise<WriteOutcome<T>>,
  ): Promise<T> {
    const key = keyOf(tenant, collection);
    return this.partitionLock.run(key, async () => {
      const client = await this.pool.connect();
      let open = false;
      try {
        await client.query("BEGIN");
        open = true;
        if (opts.create) {
          await client.query(
            `INSERT INTO memory.memory_collections (tenant, name, model, dimensions) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
            [tenant, collection, opts.create.model, opts.create.dimensions],
          );
        }
        const c = await client.query<{ model: string; dimensions: number; version: string }>(
          `SELECT model, dimensions, version FROM memory.memory_collections WHERE tenant = $1 AND name = $2 FOR UPDATE`,
          [tenant, collection],
        );
        if (c.rows.length === 0) {
          open = false;
          await client.query("ROLLBACK");
          return opts.absent;
        }
        const row = { model: c.rows[0].model, dimensions: c.rows[0].dimensions, version: Number(c.rows[0].version) };
        const part = await this.current(tenant, collection, row.version);
        const out = await fn({ client, part, row });
        if (!out.commit) {
          open = false;
          await client.query("ROLLBACK");
          return out.result;
        }
        const version = row.version + 1;
        await client.query(
          `UPDATE memory.memory_collections SET version = $3, updated_at = now() WHERE tenant = $1 AND name = $2`,
          [tenant, collection, version],
        );
        open = false;
        await client.query("COMMIT");
        try {
          const change = out.after?.(part);
          if (this.cache.get(key) === part) part.version = version;
          if (change) this.publish({ tenant, collection, version, ...change });
        } catch (err) {
          this.cache.delete(key);
          this.log.warn({ err: String(err) }, "cached partition not patched after a commit; dropped it");
        }
        return out.result;
      } catch (err) {
        if (open) await client.query("ROLLBACK").catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    });
  }

  async partitionModel(tenant: string, collection: string): Promise<{ model: string; dimensions: number } | null> {
    const part = await this.partition(tenant, collection);
    return part.size > 0 ? { model: part.model, dimensions: part.dimensions } : null;
  }

  async save(req: SaveRequest): Promise<SaveResult> {
    return this.write(
      req.tenant,
      req.collection,
      { create: { model: req.model, dimensions: req.dimensions }, absent: undefined as unknown as SaveResult },
      async ({ client, part, row }) => {
        if (row.model !== req.model || row.dimensions !== req.dimensions) {
          if (part.size > 0) throw mixedModels(req.collection, part.model, req.model);
          await client.query(
            `UPDATE memory.memory_collections SET model = $3, dimensions = $4 WHERE tenant = $1 AND name = $2`,
            [req.tenant, req.collection, req.model, req.dimensions],
          );
        }
        const plan = await planSave(req, {
          byId: async (id) => part.get(id),
          collectionOf: async (id) =>
            (
              await client.query<{ collection: string }>(
                `SELECT collection FROM memory.memories WHERE tenant = $1 AND id = $2`,
                [req.tenant, id],
              )
            ).rows[0]?.collection,
          nearest: async () => {
            const near = part.nearest(req.vector);
            return near ? { memory: part.get(near.id)!, similarity: near.similarity } : undefined;
          },
        });
        const { memory } = plan;
        const id = memory.id;
        await client.query(
          `INSERT INTO memory.memories (tenant, id, collection, text, metadata, vector, model, dimensions, created_at, updated_at, vertical)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         ON CONFLICT (tenant, id) DO UPDATE SET text = EXCLUDED.text, metadata = EXCLUDED.metadata, vertical = EXCLUDED.vertical, vector = EXCLUDED.vector,
           model = EXCLUDED.model, dimensions = EXCLUDED.dimensions, updated_at = EXCLUDED.updated_at`,
          [
            req.tenant,
            id,
            req.collection,
            req.text,
            JSON.stringify(memory.metadata),
            vectorToBuffer(req.vector),
            req.model,
            req.dimensions,
            new Date(memory.createdAt),
            new Date(memory.updatedAt),
            memory.vertical,
          ],
        );
        return {
          result: {
            memory,
            created: plan.created,
            deduplicated: plan.deduplicated,
            ...(plan.similarity !== undefined ? { similarity: plan.similarity } : {}),
          },
          commit: true,
          after: (p) => {
            if (p.size === 0) p.retarget(req.model, req.dimensions);
            else p.model = req.model;
            p.upsert({ ...memory, vector: req.vector });
            return { upserted: [id], deleted: [] };
          },
        };
      },
    );
  }

  async search(tenant: string, collection: string, vector: Float32Array, opts: SearchOptions): Promise<Hit[]> {
    const part = await this.partition(tenant, collection);
    if (part.size === 0) return [];
    return part.search(vector, opts);
  }

  async get(tenant: string, id: string): Promise<StoredMemory | null> {
    const { rows } = await this.pool.query<MemoryRowSql>(
      `SELECT ${FIELDS} FROM memory.memories WHERE tenant = $1 AND id = $2`,
      [tenant, id],
    );
    const r = rows[0];
    if (!r) return null;
    return toMemory(r);
  }

  async forgetIds(tenant: string, collection: string, ids: string[]): Promise<number> {
    return this.write(tenant, collection, { absent: 0 }, async ({ client }) => {
      const { rows } = await client.query<{ id: string }>(
        `DELETE FROM memory.memories WHERE tenant = $1 AND collection = $2 AND id = ANY($3::text[]) RETURNING id`,
        [tenant, collection, ids],
      );
      const deleted = rows.map((r) => r.id);
      return {
        result: deleted.length,
        commit: deleted.length > 0,
        after: (p) => {
          for (const id of deleted) p.remove(id);
          return { upserted: [], deleted };
        },
      };
    });
  }

  async forgetWhere(tenant: string, collection: string, filter: FilterNode, dryRun: boolean): Promise<number> {
    return this.write(tenant, collection, { absent: 0 }, async ({ client, part }) => {
      const ids = part.idsWhere(filter);
      if (dryRun || ids.length === 0) return { result: ids.length, commit: false };
      await client.query(`DELETE FROM memory.memories WHERE tenant = $1 AND collection = $2 AND id = ANY($3::text[])`, [
        tenant,
        collection,
        ids,
      ]);
      return {
        result: ids.length,
        commit: true,
        after: (p) => {
          for (const id of ids) p.remove(id);
          return { upserted: [], deleted: ids };
        },
      };
    });
  }

  async partitions(tenant?: string): Promise<PartitionInfo[]> {
    const { rows } = await this.pool.query<{
      tenant: string;
      name: string;
      model: string;
      dimensions: number;
      count: string;
    }>(
      `SELECT c.tenant, c.name, c.model, c.dimensions, count(m.id) AS count
         FROM memory.memory_collections c
         LEFT JOIN memory.memories m ON m.tenant = c.tenant AND m.collection = c.name
        WHERE $1::text IS NULL OR c.tenant = $1
        GROUP BY c.tenant, c.name, c.model, c.dimensions
        ORDER BY c.tenant, c.name`,
      [tenant ?? null],
    );
    return rows.map((r) => ({
      tenant: r.tenant,
      collection: r.name,
      model: r.model,
      dimensions: r.dimensions,
      count: Number(r.count),
    }));
  }

  async *scan(tenant: string, collection: string, batchSize: number): AsyncIterable<StoredMemory[]> {
    let after = "";
    for (;;) {
      const { rows } = await this.pool.query<MemoryRowSql>(
        `SELECT ${FIELDS} FROM memory.memories
          WHERE tenant = $1 AND collection = $2 AND id > $3 ORDER BY id LIMIT $4`,
        [tenant, collection, after, batchSize],
      );
      if (rows.length === 0) return;
      yield rows.map(toMemory);
      after = rows[rows.length - 1].id;
      if (rows.length < batchSize) return;
    }
  }

  async replaceVectors(
    tenant: string,
    collection: string,
    model: string,
    dimensions: number,
    vectors: Map<string, Float32Array>,
  ): Promise<void> {
    await this.write<void>(tenant, collection, { absent: undefined }, async ({ client }) => {
      const ids = [...vectors.keys()];
      for (let i = 0; i < ids.length; i += 500) {
        const chunk = ids.slice(i, i + 500);
        await client.query(
          `UPDATE memory.memories m SET vector = d.vector, model = $3, dimensions = $4
             FROM (SELECT unnest($5::text[]) AS id, unnest($6::bytea[]) AS vector) d
            WHERE m.tenant = $1 AND m.collection = $2 AND m.id = d.id`,
          [tenant, collection, model, dimensions, chunk, chunk.map((id) => vectorToBuffer(vectors.get(id)!))],
        );
      }
      const left = await client.query<{ n: string }>(
        `SELECT count(*) AS n FROM memory.memories WHERE tenant = $1 AND collection = $2 AND (model <> $3 OR dimensions <> $4)`,
        [tenant, collection, model, dimensions],
      );
      if (Number(left.rows[0].n) > 0) {
        throw new GantryError(
          "conflict",
          `${left.rows[0].n} memories of "${collection}" were saved while re-embedding and still use another model; run the re-embed again.`,
        );
      }
      await client.query(
        `UPDATE memory.memory_collections SET model = $3, dimensions = $4 WHERE tenant = $1 AND name = $2`,
        [tenant, collection, model, dimensions],
      );
      return {
        result: undefined,
        commit: true,
        after: () => {
          this.cache.delete(keyOf(tenant, collection));
          return { upserted: [], deleted: [], reload: true };
        },
      };
    });
  }
}
