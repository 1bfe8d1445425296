-- connections service: external-account connections (credentials encrypted at rest), OAuth consent
-- sessions, the connection event trail, and idempotency records. Every table carries "tenant" and is
-- put under row-level security by the kit after migrating.
CREATE TABLE "connections" (
    "id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "service" TEXT NOT NULL,
    "label" TEXT,
    "status" TEXT NOT NULL,
    "status_reason" TEXT,
    "auth_scheme" TEXT NOT NULL,
    "principal_id" TEXT NOT NULL,
    "external_ref" TEXT,
    "scopes" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "token_type" TEXT,
    "access_token_enc" BYTEA,
    "refresh_token_enc" BYTEA,
    "data_key_enc" BYTEA,
    "key_version" INTEGER,
    "credential_expires_at" TIMESTAMPTZ(3),
    "credential_issued_at" TIMESTAMPTZ(3),
    "last_refreshed_at" TIMESTAMPTZ(3),
    "last_used_at" TIMESTAMPTZ(3),
    "connected_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    CONSTRAINT "connections_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "connections_kind_check" CHECK ("kind" IN ('service', 'app')),
    CONSTRAINT "connections_status_check" CHECK ("status" IN ('pending', 'connected', 'needs_reauth', 'revoked')),
    CONSTRAINT "connections_auth_scheme_check" CHECK ("auth_scheme" IN ('oauth2', 'api_key')),
    -- Wrapped data key and its master-key version go together.
    CONSTRAINT "connections_key_check" CHECK (("data_key_enc" IS NULL) = ("key_version" IS NULL))
);
CREATE INDEX "connections_tenant_created_at_id_idx" ON "connections"("tenant", "created_at", "id");
CREATE INDEX "connections_tenant_service_idx" ON "connections"("tenant", "service");
CREATE INDEX "connections_status_credential_expires_at_idx" ON "connections"("status", "credential_expires_at");
-- One live (not revoked) connection per tenant and service: connection.get/revoke name it by service.
CREATE UNIQUE INDEX "connections_live_service_key" ON "connections"("tenant", "service")
    WHERE "kind" = 'service' AND "status" <> 'revoked';

CREATE TABLE "oauth_sessions" (
    "id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "connection_id" TEXT NOT NULL,
    "service" TEXT NOT NULL,
    "principal_id" TEXT NOT NULL,
    "state_hash" TEXT NOT NULL,
    "code_verifier_enc" BYTEA NOT NULL,
    "data_key_enc" BYTEA NOT NULL,
    "key_version" INTEGER NOT NULL,
    "redirect_uri" TEXT NOT NULL,
    "scopes" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "consumed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "oauth_sessions_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "oauth_sessions_state_hash_key" ON "oauth_sessions"("state_hash");
CREATE INDEX "oauth_sessions_tenant_connection_id_idx" ON "oauth_sessions"("tenant", "connection_id");
ALTER TABLE "oauth_sessions" ADD CONSTRAINT "oauth_sessions_connection_id_fkey" FOREIGN KEY ("connection_id") REFERENCES "connections"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "connection_events" (
    "id" BIGSERIAL NOT NULL,
    "tenant" TEXT NOT NULL,
    "connection_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "principal_id" TEXT,
    "request_id" TEXT,
    "detail" JSONB NOT NULL DEFAULT '{}',
    "at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "connection_events_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "connection_events_tenant_connection_id_at_idx" ON "connection_events"("tenant", "connection_id", "at");
ALTER TABLE "connection_events" ADD CONSTRAINT "connection_events_connection_id_fkey" FOREIGN KEY ("connection_id") REFERENCES "connections"("id") ON DELETE CASCADE ON UPDATE CASCADE;

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
