-- The kit's blob store (kit/src/blob, issue 28), Postgres driver: screenshots' bytes leave the
-- `screenshots` row (which keeps what a link needs: tenant, hash, size in pixels, expiry) for the one
-- blob store every service uses, so BLOB_STORE=s3 moves them out of Postgres too. Screenshots taken
-- before this migration are copied over under the key the service now reads.
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
INSERT INTO "blobs" ("tenant", "key", "bytes", "size", "content_type", "created_at", "expires_at")
    SELECT "tenant", 'screenshots/' || "id" || '.png', "png", length("png"), 'image/png', "created_at", "expires_at"
      FROM "screenshots";
ALTER TABLE "screenshots" DROP COLUMN "png";
