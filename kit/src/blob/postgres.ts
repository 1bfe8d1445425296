/**
 * @module kit/blob/postgres
 * The blob store's default driver: one row per blob in the `blobs` table of the owning service's
 * schema (BLOBS_TABLE_SQL), on the service's tenant-scoped pool, so row-level security confines
 * every statement to the caller's tenant as it does for the service's other tables.
 *
 * Expiry is compared with the service's clock (kit/src/clock.ts), not the database's `now()`, so a
 * test that moves the clock moves expiry with it. The sweep deletes expired rows in one statement,
 * skipping rows another replica's sweep holds: any number of replicas may sweep at once.
 */
import type pg from "pg";
import type { Clock } from "../clock.ts";
import { checkKey, checkPrefix, checkScope, checkSystem } from "./checks.ts";
import type { Blob, BlobInfo, BlobStore, PutOptions } from "./types.ts";

type Row = { key: string; size: number; content_type: string; expires_at: Date | null; bytes?: Buffer };

function info(row: Row): BlobInfo {
  return { key: row.key, size: row.size, contentType: row.content_type, expires: row.expires_at?.getTime() ?? null };
}

export class PostgresBlobStore implements BlobStore {
  readonly driver = "postgres" as const;
  readonly #pool: pg.Pool;
  readonly #table: string;
  readonly #now: Clock;

  constructor(pool: pg.Pool, schema: string, now: Clock) {
    if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`unsafe schema name ${JSON.stringify(schema)}`);
    this.#pool = pool;
    this.#table = `"${schema}"."blobs"`;
    this.#now = now;
  }

  async put(tenant: string, key: string, bytes: Buffer, options: PutOptions = {}): Promise<void> {
    checkScope(tenant);
    checkKey(key);
    await this.#pool.query(
      `INSERT INTO ${this.#table} (tenant, key, bytes, size, content_type, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (tenant, key) DO UPDATE SET bytes = EXCLUDED.bytes, size = EXCLUDED.size,
         content_type = EXCLUDED.content_type, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at`,
      [
        tenant,
        key,
        bytes,
        bytes.length,
        options.contentType ?? "application/octet-stream",
        new Date(this.#now()),
        options.expires == null ? null : new Date(options.expires),
      ],
    );
  }

  async #one(tenant: string, key: string, withBytes: boolean): Promise<Row | null> {
    checkScope(tenant);
    checkKey(key);
    const { rows } = await this.#pool.query<Row>(
      `SELECT key, size, content_type, expires_at${withBytes ? ", bytes" : ""} FROM ${this.#table}
        WHERE tenant = $1 AND key = $2 AND (expires_at IS NULL OR expires_at > $3)`,
      [tenant, key, new Date(this.#now())],
    );
    return rows[0] ?? null;
  }

  async get(tenant: string, key: string): Promise<Blob | null> {
    const row = await this.#one(tenant, key, true);
    return row ? { ...info(row), bytes: row.bytes as Buffer } : null;
  }

  async stat(tenant: string, key: string): Promise<BlobInfo | null> {
    const row = await this.#one(tenant, key, false);
    return row ? info(row) : null;
  }

  async list(tenant: string, prefix: string): Promise<Array<{ key: string; size: number }>> {
    checkScope(tenant);
    checkPrefix(prefix);
    // COLLATE "C": byte order, the order S3 lists keys in.
    const { rows } = await this.#pool.query<{ key: string; size: number }>(
      `SELECT key, size FROM ${this.#table} WHERE tenant = $1 AND starts_with(key, $2) ORDER BY key COLLATE "C"`,
      [tenant, prefix],
    );
    return rows;
  }

  async delete(tenant: string, key: string): Promise<void> {
    checkScope(tenant);
    checkKey(key);
    await this.#pool.query(`DELETE FROM ${this.#table} WHERE tenant = $1 AND key = $2`, [tenant, key]);
  }

  async deletePrefix(tenant: string, prefix: string): Promise<number> {
    checkScope(tenant);
    checkPrefix(prefix);
    const res = await this.#pool.query(`DELETE FROM ${this.#table} WHERE tenant = $1 AND starts_with(key, $2)`, [
      tenant,
      prefix,
    ]);
    return res.rowCount ?? 0;
  }

  async sweep(limit = 500): Promise<number> {
    checkSystem("sweep");
    const res = await this.#pool.query(
      `DELETE FROM ${this.#table} b USING (
         SELECT tenant, key FROM ${this.#table} WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED
       ) x WHERE b.tenant = x.tenant AND b.key = x.key`,
      [new Date(this.#now()), limit],
    );
    return res.rowCount ?? 0;
  }
}
