-- memory service: vector partitions, memories, the decision log, the lessons inbox, the event outbox.
CREATE TABLE "memory_collections" (
    "tenant" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "dimensions" INTEGER NOT NULL,
    "version" BIGINT NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "memory_collections_pkey" PRIMARY KEY ("tenant", "name")
);

CREATE TABLE "memories" (
    "tenant" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "collection" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "vector" BYTEA NOT NULL,
    "model" TEXT NOT NULL,
    "dimensions" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "memories_pkey" PRIMARY KEY ("tenant", "id")
);
CREATE INDEX "memories_tenant_collection_updated_at_idx" ON "memories"("tenant", "collection", "updated_at");

CREATE TABLE "decision_counters" (
    "tenant" TEXT NOT NULL,
    "last" INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT "decision_counters_pkey" PRIMARY KEY ("tenant")
);

CREATE TABLE "decisions" (
    "tenant" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "title" TEXT NOT NULL,
    "why" TEXT NOT NULL,
    "supersedes" INTEGER,
    "superseded_by" INTEGER,
    "superseded_at" TIMESTAMPTZ(3),
    "vector" BYTEA NOT NULL,
    "model" TEXT NOT NULL,
    "dimensions" INTEGER NOT NULL,
    "request_id" TEXT,
    "key_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "decisions_pkey" PRIMARY KEY ("tenant", "number")
);
CREATE INDEX "decisions_tenant_created_at_idx" ON "decisions"("tenant", "created_at");

CREATE TABLE "lessons" (
    "id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "category" TEXT NOT NULL,
    "triggers" TEXT[],
    "severity" TEXT,
    "context" TEXT,
    "lesson" TEXT NOT NULL,
    "fix" TEXT,
    "tags" TEXT[],
    "reusable" BOOLEAN,
    "request_id" TEXT,
    "key_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "lessons_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "lessons_tenant_created_at_idx" ON "lessons"("tenant", "created_at");

-- The inbox is append-only: nothing rewrites or removes a lesson once recorded.
CREATE FUNCTION "lessons_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the lessons inbox is append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;
CREATE TRIGGER "lessons_append_only" BEFORE UPDATE OR DELETE ON "lessons"
  FOR EACH ROW EXECUTE FUNCTION "lessons_append_only"();

CREATE TABLE "outbox" (
    "id" BIGSERIAL NOT NULL,
    "subject" TEXT NOT NULL,
    "msg_id" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "outbox_pkey" PRIMARY KEY ("id")
);
