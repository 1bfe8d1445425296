-- trust service: the checkpoints of each tenant's receipt log the service has signed (size, root hash,
-- the signed note, when). Before signing a checkpoint for a new size the service checks that the
-- stored log, read afresh, still has the root of the last checkpoint it signed (src/checkpoints.ts),
-- and trust.log serves consistency proofs between signed sizes (RFC 9162 §2.1.4).
CREATE TABLE "checkpoints" (
    "tenant" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "root_hash" TEXT NOT NULL,
    "note" TEXT NOT NULL,
    "signed_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "checkpoints_pkey" PRIMARY KEY ("tenant", "size")
);
