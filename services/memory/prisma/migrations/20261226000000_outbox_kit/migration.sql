-- memory: the outbox becomes the kit's (kit/src/outbox.ts): a tenant column (so row-level security
-- covers it like every tenant table; rows written before are the relay's, hence '' ), and the
-- relay's retry state.
ALTER TABLE "outbox" ADD COLUMN "tenant" TEXT NOT NULL DEFAULT '';
ALTER TABLE "outbox" ALTER COLUMN "tenant" DROP DEFAULT;
ALTER TABLE "outbox" ADD COLUMN "attempts" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "outbox" ADD COLUMN "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
ALTER TABLE "outbox" ADD COLUMN "last_error" TEXT;
CREATE INDEX "outbox_next_attempt_at_idx" ON "outbox"("next_attempt_at", "id");
