-- Tool executions (integration.execute, integration.app.execute): who ran which tool version through
-- which connection and what the provider answered. `result` (the ability's whole result) is kept only
-- for calls with an idempotencyKey, so a retry replays it; other rows are the audit trail alone.
-- Row-level security is applied by the kit at start (every table with a tenant column).
CREATE TABLE "tool_executions" (
    "id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "connection_id" TEXT NOT NULL,
    "tool_id" TEXT NOT NULL,
    "principal_id" TEXT NOT NULL,
    "access" TEXT NOT NULL,
    "share_id" TEXT,
    "status" INTEGER NOT NULL,
    "duration_ms" INTEGER NOT NULL,
    "request_id" TEXT NOT NULL,
    "result" JSONB,
    "executed_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "tool_executions_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "tool_executions_tenant_connection_id_executed_at_idx" ON "tool_executions"("tenant", "connection_id", "executed_at");
ALTER TABLE "tool_executions" ADD CONSTRAINT "tool_executions_connection_id_fkey" FOREIGN KEY ("connection_id") REFERENCES "connections"("id") ON DELETE CASCADE ON UPDATE CASCADE;
