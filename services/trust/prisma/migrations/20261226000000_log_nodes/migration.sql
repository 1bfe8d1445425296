-- trust service: the receipt log kept as the hashes of its perfect subtrees (level k, idx i: the MTH
-- of leaves [i·2^k, (i+1)·2^k)), so appends, roots, audit paths and consistency proofs read O(log n)
-- rows instead of every leaf (src/log-nodes.ts); levels 0, 8, 16, … are served as C2SP tlog-tiles.
CREATE TABLE "log_nodes" (
    "tenant" TEXT NOT NULL,
    "level" INTEGER NOT NULL,
    "idx" INTEGER NOT NULL,
    "hash" BYTEA NOT NULL,
    CONSTRAINT "log_nodes_pkey" PRIMARY KEY ("tenant", "level", "idx")
);

-- Each log's public id: its read-only URLs (/v1/logs/<log_id>/checkpoint, tiles, entries) name it
-- instead of the tenant, so they reveal neither which tenants exist nor whose log is whose.
ALTER TABLE "logs" ADD COLUMN "log_id" TEXT NOT NULL DEFAULT replace(gen_random_uuid()::text, '-', '');
CREATE UNIQUE INDEX "logs_log_id_key" ON "logs"("log_id");

-- Logs that already hold receipts: their leaves, then each level from the one below, pairs only
-- (a lone last node waits for its sibling, as appends do).
INSERT INTO "log_nodes" ("tenant", "level", "idx", "hash")
SELECT "tenant", 0, "log_index", decode("leaf_hash", 'hex') FROM "receipts";

DO $$
DECLARE
    lvl INTEGER := 0;
    added BIGINT;
BEGIN
    LOOP
        INSERT INTO "log_nodes" ("tenant", "level", "idx", "hash")
        SELECT a."tenant", lvl + 1, a."idx" / 2, sha256('\x01'::bytea || a."hash" || b."hash")
        FROM "log_nodes" a
        JOIN "log_nodes" b ON b."tenant" = a."tenant" AND b."level" = lvl AND b."idx" = a."idx" + 1
        WHERE a."level" = lvl AND a."idx" % 2 = 0;
        GET DIAGNOSTICS added = ROW_COUNT;
        EXIT WHEN added = 0;
        lvl := lvl + 1;
    END LOOP;
END $$;
