-- workspace service: contacts, leads (+ history), tasks (+ history), workspace docs (+ comments),
-- workflow runs, simulations, and idempotency records. Every table carries "tenant".
CREATE TABLE "contacts" (
    "id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "email" TEXT,
    "phone" TEXT,
    "company" TEXT,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "vertical" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "contacts_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "contacts_tenant_created_at_id_idx" ON "contacts"("tenant", "created_at", "id");

CREATE TABLE "leads" (
    "id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "contact_id" TEXT,
    "email" TEXT,
    "company" TEXT,
    "source" TEXT,
    "value_minor" BIGINT,
    "value_currency" TEXT,
    "notes" TEXT,
    "status" TEXT NOT NULL DEFAULT 'new',
    "vertical" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "closed_at" TIMESTAMPTZ(3),
    CONSTRAINT "leads_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "leads_tenant_created_at_id_idx" ON "leads"("tenant", "created_at", "id");
CREATE INDEX "leads_tenant_status_created_at_idx" ON "leads"("tenant", "status", "created_at");

CREATE TABLE "lead_events" (
    "id" BIGSERIAL NOT NULL,
    "lead_id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "from_status" TEXT,
    "to_status" TEXT NOT NULL,
    "reason" TEXT,
    "key_id" TEXT,
    "request_id" TEXT,
    "at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "lead_events_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "lead_events_lead_id_at_idx" ON "lead_events"("lead_id", "at");
ALTER TABLE "lead_events" ADD CONSTRAINT "lead_events_lead_id_fkey" FOREIGN KEY ("lead_id") REFERENCES "leads"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "tasks" (
    "id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "assigned_to" TEXT,
    "due_at" TIMESTAMPTZ(3),
    "priority" TEXT NOT NULL DEFAULT 'medium',
    "status" TEXT NOT NULL DEFAULT 'open',
    "vertical" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "closed_at" TIMESTAMPTZ(3),
    CONSTRAINT "tasks_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "tasks_tenant_created_at_id_idx" ON "tasks"("tenant", "created_at", "id");
CREATE INDEX "tasks_tenant_status_due_at_idx" ON "tasks"("tenant", "status", "due_at");

CREATE TABLE "task_events" (
    "id" BIGSERIAL NOT NULL,
    "task_id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "from_status" TEXT,
    "to_status" TEXT NOT NULL,
    "note" TEXT,
    "key_id" TEXT,
    "request_id" TEXT,
    "at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "task_events_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "task_events_task_id_at_idx" ON "task_events"("task_id", "at");
ALTER TABLE "task_events" ADD CONSTRAINT "task_events_task_id_fkey" FOREIGN KEY ("task_id") REFERENCES "tasks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "docs" (
    "id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "status" TEXT NOT NULL DEFAULT 'open',
    "vertical" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "closed_at" TIMESTAMPTZ(3),
    CONSTRAINT "docs_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "docs_tenant_created_at_id_idx" ON "docs"("tenant", "created_at", "id");

CREATE TABLE "doc_comments" (
    "id" TEXT NOT NULL,
    "doc_id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "anchor" TEXT,
    "version" INTEGER NOT NULL,
    "key_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "doc_comments_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "doc_comments_doc_id_created_at_idx" ON "doc_comments"("doc_id", "created_at");
ALTER TABLE "doc_comments" ADD CONSTRAINT "doc_comments_doc_id_fkey" FOREIGN KEY ("doc_id") REFERENCES "docs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "workflow_runs" (
    "id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "workflow" TEXT NOT NULL,
    "input" JSONB NOT NULL DEFAULT '{}',
    "status" TEXT NOT NULL DEFAULT 'queued',
    "subject" TEXT NOT NULL,
    "sequence" BIGINT,
    "endpoint_host" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_status_code" INTEGER,
    "last_error" TEXT,
    "delivered_at" TIMESTAMPTZ(3),
    "key_id" TEXT,
    "request_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "workflow_runs_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "workflow_runs_tenant_created_at_id_idx" ON "workflow_runs"("tenant", "created_at", "id");

CREATE TABLE "simulations" (
    "id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "vertical" TEXT NOT NULL,
    "seed" INTEGER NOT NULL,
    "size" TEXT NOT NULL,
    "sandbox_tenant" TEXT NOT NULL,
    "counts" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "simulations_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "simulations_sandbox_tenant_key" ON "simulations"("sandbox_tenant");
CREATE INDEX "simulations_tenant_created_at_id_idx" ON "simulations"("tenant", "created_at", "id");

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
