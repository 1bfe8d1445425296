-- memory: consolidated lessons, what the lessons consumer (src/lessons/consolidate.ts) makes of the
-- inbox. Lessons of one tenant that say the same thing (their embeddings' cosine at or above
-- LESSONS_MERGE_THRESHOLD) become one consolidated lesson with how often it was recorded, its highest
-- severity, the union of its triggers and when it was first and last seen. Both tables have a tenant
-- column, so the kit puts them under row-level security at start like every tenant table.
CREATE TABLE "consolidated_lessons" (
    "tenant" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "category" TEXT NOT NULL,
    "lesson" TEXT NOT NULL,
    "fix" TEXT,
    "severity" TEXT,
    "triggers" TEXT[],
    "tags" TEXT[],
    "count" INTEGER NOT NULL DEFAULT 1,
    "first_seen" TIMESTAMPTZ(3) NOT NULL,
    "last_seen" TIMESTAMPTZ(3) NOT NULL,
    "vector" BYTEA NOT NULL,
    "model" TEXT NOT NULL,
    "dimensions" INTEGER NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "consolidated_lessons_pkey" PRIMARY KEY ("tenant", "id")
);
CREATE INDEX "consolidated_lessons_tenant_last_seen_idx" ON "consolidated_lessons"("tenant", "last_seen");

-- Which inbox lesson was counted into which consolidated lesson: the lesson id is the key, so a
-- redelivered event finds its row and is not counted twice.
CREATE TABLE "consolidated_lesson_sources" (
    "tenant" TEXT NOT NULL,
    "lesson_id" TEXT NOT NULL,
    "consolidated_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "consolidated_lesson_sources_pkey" PRIMARY KEY ("tenant", "lesson_id")
);
CREATE INDEX "consolidated_lesson_sources_tenant_consolidated_id_idx" ON "consolidated_lesson_sources"("tenant", "consolidated_id");
