/**
 * @module bench/lib/scale-keys
 * The `keys` part of `npm run bench -- --scale` (issue 30): what authenticating a key and auditing a
 * call cost as the keys service's tables grow. The keys service runs in this process on the
 * one-service harness (real Postgres and NATS, its own login under row-level security).
 *
 *  - `key.auth`, `key.auth:unknown`: the gateway's cache-miss path, `KeyResolver/ResolveKey` over
 *    gRPC with the SHA-256 of a bearer, as gateway/src/key-cache.ts sends it, when the keys table
 *    holds n keys (all of one tenant): a random stored key, and a well-formed key nobody issued
 *    (the lookup that answers NOT_FOUND). Keys are made by the kit's `generateKey` and stored by
 *    `hashKey`, as key.issue stores them, inserted in bulk with column arrays.
 *  - `audit.insert`: the keys service's audit writer (`insertAuditRecords`, the statement its
 *    JetStream consumer runs) writing one gateway batch (256 records, AUDIT_BATCH_MAX) with fresh
 *    request ids shaped like the gateway's, when `audit_records` holds n rows. Sizes: the run's,
 *    plus 10⁷ when the largest asked is 10⁶.
 *  - `audit.recent`: one tenant's latest 50 records, newest first, on a tenant-scoped connection
 *    (what a reader of the audit log would run), at the same sizes.
 *
 * Audit rows are seeded with `INSERT … SELECT generate_series`, spread over 50 tenants, one a
 * second within the last 200 days (inside the default retention, so the service's sweep keeps them).
 */
import { createHash } from "node:crypto";
import type pg from "pg";
import {
  asSystem,
  type AuditRecord,
  generateKey,
  hashKey,
  keyPrefix,
  makeClient,
  newKeyId,
  randomBase62,
  GantryError,
  withTenant,
} from "@gantry/kit";
import { KEYS_PROTO } from "@gantry/proto/paths";
import { startService } from "../../infra/testing/service.ts";
import { insertAuditRecords } from "../../services/keys/src/audit-consumer.ts";
import type { Context } from "../../services/keys/src/context.ts";
import type { ScaleCurve, ScaleOptions, ScalePoint } from "./scale-curve.ts";
import { timeSamples } from "./scale-timing.ts";

const KEY_TENANT = "bench-scale-keys";
const AUDIT_TENANTS = 50;
/** The tenant of the timed batches, deleted after each size (seeded tenants are `bench-audit-<g % 50>`). */
const LIVE_TENANT = "bench-live";
const AUDIT_BATCH = 256;
const AUTH_SAMPLES = 500;
const AUTH_WARMUP = 50;
const INSERT_SAMPLES = 100;
const INSERT_WARMUP = 10;
const RECENT_LIMIT = 50;
const KEY_CHUNK = 20_000;
const AUDIT_CHUNK = 500_000;
/** Stored keys kept to look up, drawn uniformly from every key seeded so far. */
const RESERVOIR = 4_000;

/** The audit curve's sizes: the run's, and 10⁷ after 10⁶ (issue 30 asks audit inserts at 10⁷ rows). */
export function auditSizes(sizes: number[]): number[] {
  return sizes.at(-1) === 1_000_000 ? [...sizes, 10_000_000] : sizes;
}

async function count(db: pg.Pool, table: string, tenantLike = "%"): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM keys.${table} WHERE tenant LIKE $1`, [
    tenantLike,
  ]);
  return rows[0]!.n;
}

/** Adds keys until the table holds `to`, keeping a uniform sample of their secrets in `reservoir`. */
async function seedKeys(
  db: pg.Pool,
  from: number,
  to: number,
  reservoir: string[],
  log: (line: string) => void,
): Promise<void> {
  for (let start = from; start < to; start += KEY_CHUNK) {
    const n = Math.min(KEY_CHUNK, to - start);
    const cols: string[][] = [[], [], [], []];
    for (let i = 0; i < n; i++) {
      const key = generateKey();
      cols[0].push(newKeyId());
      cols[1].push(`bench key ${start + i}`);
      cols[2].push(keyPrefix(key));
      cols[3].push(hashKey(key));
      // Reservoir sampling: each key seeded so far is in the sample with the same chance.
      const seen = start + i;
      if (reservoir.length < RESERVOIR) reservoir.push(key);
      else {
        const j = Math.floor(Math.random() * (seen + 1));
        if (j < RESERVOIR) reservoir[j] = key;
      }
    }
    await db.query(
      `INSERT INTO keys.api_keys (id, tenant, name, prefix, secret_hash, scopes, collections, products)
       SELECT id, $5, name, prefix, h, ARRAY['contact.*'], '{}', '{}' FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS t(id, name, prefix, h)`,
      [...cols, KEY_TENANT],
    );
    if ((start + n) % 200_000 === 0 && start + n < to) log(`keys: ${(start + n).toLocaleString("en-US")} keys stored`);
  }
  await db.query("ANALYZE keys.api_keys");
}

/** Adds audit rows g = from … to − 1 (a second apart, within the last 200 days). */
async function seedAudit(db: pg.Pool, from: number, to: number, log: (line: string) => void): Promise<void> {
  for (let start = from; start < to; start += AUDIT_CHUNK) {
    const end = Math.min(to, start + AUDIT_CHUNK);
    await db.query(
      `INSERT INTO keys.audit_records (request_id, tenant, key_id, ability, status, error_code, duration_ms, input_hash, at)
       SELECT 'req_' || left(md5(g::text), 22), 'bench-audit-' || (g % ${AUDIT_TENANTS}), 'key_bench' || (g % 997),
              'contact.get', CASE WHEN g % 50 = 0 THEN 404 ELSE 200 END, CASE WHEN g % 50 = 0 THEN 'not_found' END,
              (g % 1000) / 100.0, md5('in' || g::text) || md5(g::text),
              date_trunc('day', now()) - interval '200 days' + g * interval '1 second'
         FROM generate_series($1::int, $2::int - 1) g`,
      [start, end],
    );
    if (end < to || to - from >= AUDIT_CHUNK) log(`audit: ${end.toLocaleString("en-US")} records stored`);
  }
  await db.query("ANALYZE keys.audit_records");
}

/** The last seeded row g < n of tenant `bench-audit-<k>`. */
const lastOf = (n: number, k: number) => Math.floor((n - 1 - k) / AUDIT_TENANTS) * AUDIT_TENANTS + k;
/** The seeded request id's random part: md5 of the row number, as seedAudit writes it. */
const md5Left = (g: number) => createHash("md5").update(String(g)).digest("hex").slice(0, 22);

/** Table and index sizes of `table`, MiB. */
async function sizeMiB(db: pg.Pool, table: string): Promise<{ tableMiB: number; indexMiB: number }> {
  const { rows } = await db.query<{ t: string; i: string }>(
    `SELECT pg_table_size($1::regclass) AS t, pg_indexes_size($1::regclass) AS i`,
    [`keys.${table}`],
  );
  const mib = (v: string) => Math.round((Number(v) / 2 ** 20) * 10) / 10;
  return { tableMiB: mib(rows[0]!.t), indexMiB: mib(rows[0]!.i) };
}

/**
 * The statement alone, without gRPC and Prisma: p50 of the lookup by secret hash (`sqlUs`) and the
 * buffer pages one lookup touches (`pages`: the index's depth plus the row's page), which is where
 * a growing table would show.
 */
async function lookupCost(db: pg.Pool, reservoir: string[]): Promise<{ sqlUs: number; pages: number }> {
  const sql = "SELECT * FROM keys.api_keys WHERE secret_hash = $1";
  const point = await timeSamples(0, "µs", AUTH_SAMPLES, AUTH_WARMUP, (i) =>
    db.query(sql, [hashKey(reservoir[i % reservoir.length]!)]),
  );
  const { rows } = await db.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql}`, [hashKey(reservoir[0]!)]);
  const plan = rows[0]["QUERY PLAN"][0].Plan;
  return { sqlUs: Math.round(point.p50), pages: plan["Shared Hit Blocks"] + plan["Shared Read Blocks"] };
}

/** One gateway batch of records made now, with request ids as the gateway mints them. */
function auditBatch(): AuditRecord[] {
  const at = new Date().toISOString();
  return Array.from({ length: AUDIT_BATCH }, (_, i) => ({
    requestId: `req_${randomBase62(22)}`,
    tenant: LIVE_TENANT,
    keyId: `key_bench${i % 997}`,
    ability: "contact.get",
    status: 200,
    durationMs: 1.25,
    inputHash: hashKey(`input ${i}`),
    at,
  }));
}

export async function keysScale(opts: ScaleOptions): Promise<ScaleCurve[]> {
  const s = await startService<Context>("keys");
  const client = makeClient(KEYS_PROTO, "gantry.keys.v1.KeyResolver", `127.0.0.1:${s.port}`, { signer: s.signer() });
  const known: ScalePoint[] = [];
  const unknown: ScalePoint[] = [];
  const inserts: ScalePoint[] = [];
  const recent: ScalePoint[] = [];
  const resolve = (key: string) =>
    client.unary("ResolveKey", { secret_sha256: hashKey(key), legacy_only: false }, { deadlineMs: 5_000 });
  try {
    const reservoir: string[] = [];
    for (const n of opts.sizes) {
      const t = performance.now();
      // The table also holds the service's admin key: n counts the benchmark tenant's keys.
      await seedKeys(s.db, await count(s.db, "api_keys", KEY_TENANT), n, reservoir, opts.log);
      const seedSec = (performance.now() - t) / 1000;
      const sizes = await sizeMiB(s.db, "api_keys");
      // What the gateway would see: a stored key resolves to its record, a made-up one to NOT_FOUND.
      const probe = await resolve(reservoir[0]!);
      if (probe.tenant !== KEY_TENANT) throw new Error(`ResolveKey found ${JSON.stringify(probe)}`);
      await resolve(generateKey()).then(
        (r) => {
          throw new Error(`an unknown key resolved to ${r.id}`);
        },
        (err) => {
          if (!(err instanceof GantryError) || err.code !== "not_found") throw err;
        },
      );
      const lookup = await lookupCost(s.db, reservoir);
      known.push(
        await timeSamples(
          n,
          "µs",
          AUTH_SAMPLES,
          AUTH_WARMUP,
          () => resolve(reservoir[Math.floor(Math.random() * reservoir.length)]!),
          { seedSec, ...sizes, ...lookup },
        ),
      );
      unknown.push(
        await timeSamples(n, "µs", AUTH_SAMPLES, AUTH_WARMUP, () =>
          resolve(generateKey()).catch((err) => {
            if (!(err instanceof GantryError) || err.code !== "not_found") throw err;
          }),
        ),
      );
      opts.log(
        `keys ${n}: seeded in ${seedSec.toFixed(1)} s (${sizes.tableMiB} + ${sizes.indexMiB} MiB); ResolveKey p50 ${known.at(-1)!.p50.toFixed(0)} µs (SQL alone ${lookup.sqlUs} µs, ${lookup.pages} pages), unknown ${unknown.at(-1)!.p50.toFixed(0)} µs`,
      );
    }

    for (const n of auditSizes(opts.sizes)) {
      const t = performance.now();
      // Rows the previous size's timed inserts added count towards this size.
      await seedAudit(s.db, await count(s.db, "audit_records", "bench-audit-%"), n, opts.log);
      const seedSec = (performance.now() - t) / 1000;
      const tenant = "bench-audit-7";
      const readRecent = () =>
        withTenant(tenant, () =>
          s.ctx.pool.query(
            `SELECT request_id, ability, status, at FROM keys.audit_records WHERE tenant = $1 ORDER BY at DESC LIMIT ${RECENT_LIMIT}`,
            [tenant],
          ),
        );
      // Tenant 7 holds every 50th seeded row: what it reads is its own newest rows, no one else's.
      const first = await readRecent();
      const expected = Math.min(RECENT_LIMIT, Math.floor((n - 8) / AUDIT_TENANTS) + 1);
      if (first.rows.length !== expected || first.rows[0]?.request_id !== `req_${md5Left(lastOf(n, 7))}`)
        throw new Error(
          `tenant ${tenant} reads ${first.rows.length} recent audit records at ${n} rows, newest ${first.rows[0]?.request_id}`,
        );
      inserts.push(
        await timeSamples(n, "ms", INSERT_SAMPLES, INSERT_WARMUP, () =>
          asSystem(() => insertAuditRecords(s.ctx.pool, auditBatch())),
        ),
      );
      const after = await sizeMiB(s.db, "audit_records");
      // The timed batches are removed again, so the next size starts from its own count.
      await s.db.query(`DELETE FROM keys.audit_records WHERE tenant = $1`, [LIVE_TENANT]);
      Object.assign(inserts.at(-1)!, {
        extra: { seedSec, ...after, perRecordUs: Math.round((inserts.at(-1)!.p50 * 1000) / AUDIT_BATCH) },
      });
      recent.push(await timeSamples(n, "ms", AUTH_SAMPLES, AUTH_WARMUP, readRecent));
      opts.log(
        `audit ${n}: seeded in ${seedSec.toFixed(1)} s (${after.tableMiB} + ${after.indexMiB} MiB); insert of ${AUDIT_BATCH} p50 ${inserts.at(-1)!.p50.toFixed(2)} ms, recent read p50 ${recent.at(-1)!.p50.toFixed(2)} ms`,
      );
    }
  } finally {
    client.close();
    await s.stop();
  }
  const harness =
    "The keys service in this process (one-service harness: real Postgres and NATS, its own login under row-level security).";
  const tenMillion =
    auditSizes(opts.sizes).length > opts.sizes.length
      ? " 10⁷ is added to this curve's sizes (issue 30 asks audit inserts at 10⁷ rows)."
      : "";
  return [
    {
      id: "key.auth",
      label: "key auth (cache miss), stored key",
      unit: "µs",
      note: `${harness} Each sample is the gateway's cache-miss lookup, \`KeyResolver/ResolveKey\` over gRPC with the SHA-256 of a random stored key, when the keys table holds n keys of one tenant (made by the kit's generateKey, stored as hashKey, inserted in bulk). ${AUTH_SAMPLES} samples after ${AUTH_WARMUP} untimed; \`sqlUs\`: p50 of the SELECT by secret_hash alone (no gRPC, no Prisma), \`pages\`: buffer pages one such lookup touches (EXPLAIN BUFFERS: index depth + the row), \`tableMiB\`/\`indexMiB\`: api_keys, \`seedSec\`: time to top the table up.`,
      expected: "O(log n)",
      points: known,
    },
    {
      id: "key.auth:unknown",
      label: "key auth (cache miss), unknown key",
      unit: "µs",
      note: `${harness} As key.auth, with a fresh well-formed key nobody issued: the lookup finds nothing and answers NOT_FOUND (the gateway then remembers the hash for 5 s).`,
      expected: "O(log n)",
      points: unknown,
    },
    {
      id: "audit.insert",
      label: `audit insert, batch of ${AUDIT_BATCH}`,
      unit: "ms",
      note: `${harness} Each sample is the audit writer's statement (\`insertAuditRecords\`, one INSERT of column arrays, as its JetStream consumer writes) for one gateway batch of ${AUDIT_BATCH} records with fresh random request ids, when audit_records holds n rows of ${AUDIT_TENANTS} tenants (seeded by INSERT … SELECT generate_series).${tenMillion} Growth is bounded by retention (AUDIT_RETENTION_DAYS, default 365: the table holds one window of calls; services/keys/README.md). ${INSERT_SAMPLES} samples after ${INSERT_WARMUP} untimed; \`perRecordUs\`: p50 per record; \`tableMiB\`/\`indexMiB\`: audit_records after the samples.`,
      expected: "O(log n)",
      points: inserts,
    },
    {
      id: "audit.recent",
      label: `audit read, tenant's latest ${RECENT_LIMIT}`,
      unit: "ms",
      note: `${harness} One tenant's latest ${RECENT_LIMIT} records, newest first, on a tenant-scoped connection (row-level security) through the (tenant, at) index, at the audit.insert sizes. ${AUTH_SAMPLES} samples after ${AUTH_WARMUP} untimed.`,
      expected: "O(log n)",
      points: recent,
    },
  ];
}
