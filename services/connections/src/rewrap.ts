/**
 * @module connections/rewrap
 * Master-key rotation, the second half: re-wraps every stored data key (connections and consent
 * sessions) that is not under the current master-key version, so the previous master key can be
 * retired. Values are not re-encrypted; only each row's wrapped data key and `key_version` change.
 *
 * Rotation, step by step:
 *   1. Deploy with the new key as CONNECTIONS_MASTER_KEY, CONNECTIONS_MASTER_KEY_VERSION raised by
 *      one, and the old key in CONNECTIONS_PREVIOUS_MASTER_KEYS (`{"1": "<old base64>"}`). New writes
 *      use the new key; old rows stay readable.
 *   2. Run `node services/connections/src/rewrap.ts` with the same environment (and DATABASE_URL).
 *      It prints how many rows it re-wrapped and how many remain under other versions (0 when done).
 *   3. Remove the old key from CONNECTIONS_PREVIOUS_MASTER_KEYS.
 *
 * Rows are taken in batches with `FOR UPDATE SKIP LOCKED`, so it runs beside live replicas: a row a
 * refresh holds is re-wrapped in a later batch (or re-sealed by the refresh itself under the current
 * key). Runs in system scope: it covers every tenant.
 *
 * @example
 * node services/connections/src/rewrap.ts
 * // {"connections":12,"sessions":3,"remaining":0,"version":2}
 */
import { fileURLToPath } from "node:url";
import type pg from "pg";
import { asSystem, bypassesRls, inTransaction, loadConfig, SERVICE_ROLE, TenantPool } from "@gantry/kit";
import { CONNECTIONS_ENV, loadMasterKeys } from "./config.ts";
import { type MasterKeys, rewrapKey } from "./crypto.ts";
import { SCHEMA } from "./db.ts";

const TABLES = ["connections", "oauth_sessions"] as const;

export interface RewrapResult {
  connections: number;
  sessions: number;
  /** Rows still wrapped under another version (rows locked by a live refresh at the last pass). */
  remaining: number;
  version: number;
}

async function rewrapBatch(pool: pg.Pool, keys: MasterKeys, table: string, batch: number): Promise<number> {
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query<{ id: string; tenant: string; data_key_enc: Buffer; key_version: number }>(
      `SELECT id, tenant, data_key_enc, key_version FROM "${SCHEMA}"."${table}"
        WHERE data_key_enc IS NOT NULL AND key_version <> $1
        ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [keys.current.version, batch],
    );
    for (const r of rows) {
      const moved = rewrapKey(keys, { tenant: r.tenant, id: r.id }, r.data_key_enc, r.key_version);
      await client.query(`UPDATE "${SCHEMA}"."${table}" SET data_key_enc = $1, key_version = $2 WHERE id = $3`, [
        moved.wrappedKey,
        moved.keyVersion,
        r.id,
      ]);
    }
    return rows.length;
  });
}

/** Re-wraps every data key not under `keys.current`; returns the counts. Takes the scope it needs. */
export function rewrapAll(pool: pg.Pool, keys: MasterKeys, batch = 200): Promise<RewrapResult> {
  return asSystem(async () => {
    const done = { connections: 0, oauth_sessions: 0 };
    for (const table of TABLES) {
      for (let n = await rewrapBatch(pool, keys, table, batch); n > 0; n = await rewrapBatch(pool, keys, table, batch))
        done[table] += n;
    }
    const { rows } = await pool.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM "${SCHEMA}"."connections" WHERE data_key_enc IS NOT NULL AND key_version <> $1)
            + (SELECT count(*) FROM "${SCHEMA}"."oauth_sessions" WHERE key_version <> $1) AS n`,
      [keys.current.version],
    );
    return {
      connections: done.connections,
      sessions: done.oauth_sessions,
      remaining: Number(rows[0]?.n ?? 0),
      version: keys.current.version,
    };
  });
}

async function cli(): Promise<void> {
  const config = loadConfig("connections rewrap", CONNECTIONS_ENV, [], process.env);
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is required");
  const keys = loadMasterKeys(config);
  if (keys.development) throw new Error("CONNECTIONS_MASTER_KEY is unset: there is nothing to rotate to");
  const probe = new TenantPool({ connectionString: url, max: 1 });
  const role = (await bypassesRls(probe)) ? SERVICE_ROLE : undefined;
  await probe.end();
  const pool = new TenantPool({ connectionString: url, max: 2, role });
  try {
    process.stdout.write(`${JSON.stringify(await rewrapAll(pool, keys))}\n`);
  } finally {
    await pool.end();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  cli().catch((err) => {
    process.stderr.write(`connections rewrap: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
