-- trust service: runs with single-use permits, signed receipts of the calls made under them (one
-- append-only Merkle log per tenant), claims and published answers. Every table carries "tenant" and
-- is put under row-level security by the kit after migrating.
CREATE TABLE "runs" (
    "id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "task" TEXT NOT NULL,
    "key_id" TEXT NOT NULL,
    "request_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "runs_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "runs_tenant_created_at_idx" ON "runs"("tenant", "created_at");

CREATE TABLE "permits" (
    "id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "ability" TEXT NOT NULL,
    "input_hash" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    "request_id" TEXT,
    CONSTRAINT "permits_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "permits_status_check" CHECK ("status" IN ('issued', 'used')),
    CONSTRAINT "permits_used_check" CHECK (("status" = 'used') = ("used_at" IS NOT NULL)),
    CONSTRAINT "permits_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE
);
CREATE INDEX "permits_run_id_ability_input_hash_idx" ON "permits"("run_id", "ability", "input_hash");

-- A receipt's id is the request id of the call. log_index is its position in the tenant's Merkle log.
CREATE TABLE "receipts" (
    "request_id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "run_id" TEXT,
    "permit_id" TEXT,
    "ability" TEXT NOT NULL,
    "input_hash" TEXT NOT NULL,
    "result_hash" TEXT,
    "outcome" TEXT NOT NULL,
    "status" INTEGER NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "envelope" JSONB NOT NULL,
    "leaf_hash" TEXT NOT NULL,
    "log_index" INTEGER NOT NULL,
    CONSTRAINT "receipts_pkey" PRIMARY KEY ("request_id"),
    CONSTRAINT "receipts_outcome_check" CHECK ("outcome" IN ('succeeded', 'failed'))
);
CREATE UNIQUE INDEX "receipts_tenant_log_index_key" ON "receipts"("tenant", "log_index");
CREATE INDEX "receipts_run_id_idx" ON "receipts"("run_id");

-- The size of each tenant's log: appending takes the next index with one upsert, which serialises
-- concurrent appends of a tenant on this row.
CREATE TABLE "logs" (
    "tenant" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    CONSTRAINT "logs_pkey" PRIMARY KEY ("tenant")
);

CREATE TABLE "publications" (
    "id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "run_id" TEXT,
    "request_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "publications_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "claims" (
    "id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "run_id" TEXT,
    "publication_id" TEXT,
    "position" INTEGER NOT NULL,
    "text" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "receipt_ids" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "claims_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "claims_status_check" CHECK ("status" IN ('observed', 'inference', 'unverified'))
);
CREATE INDEX "claims_run_id_idx" ON "claims"("run_id");
CREATE INDEX "claims_publication_id_idx" ON "claims"("publication_id");
