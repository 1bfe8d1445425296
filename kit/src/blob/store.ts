/**
 * @module kit/blob/store
 * The one blob store: where every file a service keeps lives (content's documents, help centres and
 * tenant skills, web's screenshots), so that any replica serves what another wrote and a restart
 * loses nothing. Two drivers behind one interface, chosen by `BLOB_STORE`:
 *
 * - `postgres` (the default): a `blobs` table in the owning service's own schema (postgres.ts). No
 *   extra process for `npm start`, and every replica already shares the database.
 * - `s3`: any S3-compatible server through `@aws-sdk/client-s3` (s3.ts): `BLOB_S3_BUCKET`, an
 *   optional key prefix, endpoint, region and path-style addressing; credentials come from the
 *   SDK's standard chain (`AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`, web identity, …), never from
 *   a variable of ours, and are never logged.
 *
 * Blobs belong to a tenant, and a tenant's calls reach only their own: the Postgres table has a
 * `tenant` column and is under row-level security like every tenant table (kit/src/tenancy.ts);
 * both drivers also refuse a tenant the current scope does not cover (`checkScope`), so the S3
 * driver keeps the same rule and a call outside any scope fails closed. Work that is not a call
 * (the files ingress behind a signed link, sweeps) runs in `asSystem`.
 *
 * A blob may carry an expiry: after it, `get` and `stat` answer null and `sweep` deletes it. The
 * sweep is one idempotent statement (Postgres) or a walk of expiry markers in time order (S3), so
 * every replica may run it at once. Bytes are Buffers: the largest blob is a rendered document
 * (CONTENT_MAX_DOCUMENT_BYTES, 20 MB by default), which a Postgres `bytea` and one S3 PUT hold.
 *
 * A service that stores blobs in Postgres creates the table in its own migration (BLOBS_TABLE_SQL;
 * the schema-vs-SQL test checks it like any other table) and builds its store once in `init`:
 *
 * @example
 * const blobs = await createBlobStore({ config, pool: deps.pool, schema: "content", now, log });
 * await blobs.put(call.tenant, `artifacts/${id}.pdf`, bytes, { contentType: "application/pdf", expires });
 * const blob = await blobs.get(call.tenant, `artifacts/${id}.pdf`); // { bytes, contentType, size, … } | null
 */
import type pg from "pg";
import type { Clock } from "../clock.ts";
import { type ConfigOf, ConfigError, defineEnv } from "../config.ts";
import type { Logger } from "../logger.ts";
import { PostgresBlobStore } from "./postgres.ts";
import type { BlobStore } from "./types.ts";

export { isBlobKey } from "./checks.ts";
export type { Blob, BlobInfo, BlobStore, PutOptions } from "./types.ts";

export const BLOB_ENV = defineEnv({
  BLOB_STORE: {
    type: "string",
    enum: ["postgres", "s3"],
    default: "postgres",
    description: "where files are kept: `postgres` (the service's `blobs` table) or `s3` (BLOB_S3_BUCKET)",
  },
  BLOB_S3_BUCKET: { type: "string", description: "S3 bucket of the blob store (required with BLOB_STORE=s3)" },
  BLOB_S3_PREFIX: {
    type: "string",
    default: "",
    description: "key prefix inside the bucket, e.g. `gantry/`; the service name is appended (`<prefix><service>/`)",
  },
  BLOB_S3_ENDPOINT: {
    type: "string",
    pattern: "^https?://",
    description: "S3 endpoint URL for a server other than AWS (MinIO, versitygw, SeaweedFS, Ceph, …)",
  },
  BLOB_S3_REGION: { type: "string", default: "us-east-1", description: "S3 region" },
  BLOB_S3_FORCE_PATH_STYLE: {
    type: "boolean",
    default: false,
    description:
      "address the bucket as `<endpoint>/<bucket>` rather than `<bucket>.<endpoint>` (most self-hosted servers)",
  },
});

export type BlobConfig = ConfigOf<typeof BLOB_ENV>;

export interface BlobStoreOptions {
  config: BlobConfig;
  /** The service's tenant-scoped pool (`deps.pool`): the Postgres driver's table is in its schema. */
  pool?: pg.Pool;
  /** The owning service's name: its Postgres schema, and its folder under the S3 prefix. */
  schema: string;
  now: Clock;
  log?: Logger;
}

/**
 * The store `BLOB_STORE` names. A missing setting stops the start, naming it. The S3 SDK is loaded
 * only when it is the driver: every process imports the kit, few need S3.
 */
export async function createBlobStore(opts: BlobStoreOptions): Promise<BlobStore> {
  const { config } = opts;
  if (config.BLOB_STORE === "s3") {
    if (!config.BLOB_S3_BUCKET) throw new ConfigError(`${opts.schema}: BLOB_STORE=s3 needs BLOB_S3_BUCKET`);
    opts.log?.info(
      // The origin only: an endpoint written with user:password@ must not reach the log.
      {
        bucket: config.BLOB_S3_BUCKET,
        endpoint: config.BLOB_S3_ENDPOINT ? new URL(config.BLOB_S3_ENDPOINT).origin : "aws",
        prefix: config.BLOB_S3_PREFIX,
      },
      "blob store: s3",
    );
    const { S3BlobStore } = await import("./s3.ts");
    return new S3BlobStore({
      bucket: config.BLOB_S3_BUCKET,
      prefix: `${config.BLOB_S3_PREFIX}${opts.schema}/`,
      endpoint: config.BLOB_S3_ENDPOINT,
      region: config.BLOB_S3_REGION,
      forcePathStyle: config.BLOB_S3_FORCE_PATH_STYLE,
      now: opts.now,
    });
  }
  if (!opts.pool)
    throw new ConfigError(`${opts.schema}: BLOB_STORE=postgres needs the service's database (DATABASE_URL)`);
  return new PostgresBlobStore(opts.pool, opts.schema, opts.now);
}

/**
 * The table a service creates in its own schema (by a migration of its own) for the Postgres
 * driver; `tenant` puts it under row-level security.
 */
export const BLOBS_TABLE_SQL = `CREATE TABLE "blobs" (
    "tenant" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "bytes" BYTEA NOT NULL,
    "size" INTEGER NOT NULL,
    "content_type" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3),
    CONSTRAINT "blobs_pkey" PRIMARY KEY ("tenant", "key")
);
CREATE INDEX "blobs_expires_at_idx" ON "blobs"("expires_at");
`;
