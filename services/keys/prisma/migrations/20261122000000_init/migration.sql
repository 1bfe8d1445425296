-- keys service: API keys, their event trail, and the audit log.
CREATE TABLE "api_keys" (
    "id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "secret_hash" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'active',
    "scopes" TEXT[],
    "collections" TEXT[],
    "products" TEXT[],
    "admin" BOOLEAN NOT NULL DEFAULT false,
    "sub_tenants" BOOLEAN NOT NULL DEFAULT false,
    "rate_limit" INTEGER,
    "rate_window_seconds" INTEGER,
    "expires_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "rotated_to" TEXT,
    "origin" TEXT NOT NULL DEFAULT 'api',
    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "api_keys_secret_hash_key" ON "api_keys"("secret_hash");
CREATE UNIQUE INDEX "api_keys_rotated_to_key" ON "api_keys"("rotated_to");
CREATE INDEX "api_keys_tenant_created_at_idx" ON "api_keys"("tenant", "created_at");

CREATE TABLE "key_events" (
    "id" BIGSERIAL NOT NULL,
    "key_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "reason" TEXT,
    "actor_key_id" TEXT,
    "request_id" TEXT,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "key_events_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "key_events_key_id_at_idx" ON "key_events"("key_id", "at");
ALTER TABLE "key_events" ADD CONSTRAINT "key_events_key_id_fkey" FOREIGN KEY ("key_id") REFERENCES "api_keys"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "audit_records" (
    "request_id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "key_id" TEXT,
    "ability" TEXT,
    "status" INTEGER NOT NULL,
    "error_code" TEXT,
    "duration_ms" DOUBLE PRECISION NOT NULL,
    "input_hash" TEXT,
    "at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "audit_records_pkey" PRIMARY KEY ("request_id")
);
CREATE INDEX "audit_records_tenant_at_idx" ON "audit_records"("tenant", "at");
