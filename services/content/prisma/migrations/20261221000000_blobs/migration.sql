-- The kit's blob store (kit/src/blob, issue 28), Postgres driver: every file the service keeps —
-- rendered documents, guides and built help centres, tenant skills — one row per (tenant, key),
-- under row-level security like every tenant table, so any replica serves what another wrote.
CREATE TABLE "blobs" (
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
