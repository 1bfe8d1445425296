-- trust service: plans (phases with dependencies, checks and expected actions, kept as one JSONB
-- document per plan and changed under a row lock), lessons plan.learn recorded (copies of what was
-- sent to the memory service's lessons inbox, so later plans can draw on them without reading
-- another service's tables), QA checklists, and idempotency records (kit/src/data/idempotency.ts).
CREATE TABLE "plans" (
    "id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "goal" TEXT NOT NULL,
    "constraints" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "vertical" TEXT,
    "type" TEXT,
    "status" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "model" TEXT,
    "phases" JSONB NOT NULL,
    "sources" JSONB NOT NULL,
    "outcome" TEXT,
    "notes" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "closed_at" TIMESTAMPTZ(3),
    CONSTRAINT "plans_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "plans_status_check" CHECK ("status" IN ('planned', 'in_progress', 'verified', 'closed'))
);
CREATE INDEX "plans_tenant_created_at_idx" ON "plans"("tenant", "created_at");

CREATE TABLE "plan_lessons" (
    "id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "plan_id" TEXT NOT NULL,
    "type" TEXT,
    "vertical" TEXT,
    "title" TEXT NOT NULL,
    "lesson" TEXT NOT NULL,
    "severity" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "plan_lessons_pkey" PRIMARY KEY ("tenant", "id")
);
CREATE INDEX "plan_lessons_tenant_created_at_idx" ON "plan_lessons"("tenant", "created_at");

CREATE TABLE "checklists" (
    "id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "scope" TEXT,
    "plan_id" TEXT,
    "vertical" TEXT,
    "items" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "checklists_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "idempotency_records" (
    "tenant" TEXT NOT NULL,
    "ability" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "input_hash" TEXT NOT NULL,
    "input" JSONB NOT NULL,
    "record_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "idempotency_records_pkey" PRIMARY KEY ("tenant", "ability", "key")
);

-- One plan.execute call: the phases it started (what an idempotent replay answers again).
CREATE TABLE "plan_executions" (
    "id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "plan_id" TEXT NOT NULL,
    "started" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "plan_executions_pkey" PRIMARY KEY ("id")
);
