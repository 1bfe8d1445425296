-- workspace: the kit outbox (kit/src/outbox.ts): events written in the transaction of the change they describe.
CREATE TABLE "outbox" (
    "id" BIGSERIAL NOT NULL,
    "tenant" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "msg_id" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "outbox_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "outbox_next_attempt_at_idx" ON "outbox"("next_attempt_at", "id");
