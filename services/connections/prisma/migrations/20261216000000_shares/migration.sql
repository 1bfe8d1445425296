-- Shares (issue 14): a connection's owner grants another principal (API key id) the use of chosen
-- tools of the connection, until expires_at (null: until revoked). Row-level security is applied by
-- the kit at start (every table with a tenant column).
CREATE TABLE "connection_shares" (
    "id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "connection_id" TEXT NOT NULL,
    "principal_id" TEXT NOT NULL,
    "tool_ids" TEXT[],
    "granted_by" TEXT NOT NULL,
    "request_id" TEXT,
    "expires_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "connection_shares_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "connection_shares_tenant_connection_id_idx" ON "connection_shares"("tenant", "connection_id");
CREATE INDEX "connection_shares_tenant_principal_id_idx" ON "connection_shares"("tenant", "principal_id");
ALTER TABLE "connection_shares" ADD CONSTRAINT "connection_shares_connection_id_fkey" FOREIGN KEY ("connection_id") REFERENCES "connections"("id") ON DELETE CASCADE ON UPDATE CASCADE;
