-- keys service, issue 3: the key lifecycle (issue, rotate, revoke, expire) and the legacy credential store.

-- An `expired` event is recorded at most once per key, whether by the periodic sweep, lazily when a
-- key is resolved or listed, or by several replicas at once (INSERT … ON CONFLICT DO NOTHING).
-- Partial indexes cannot be written in schema.prisma; this one is declared only here.
CREATE UNIQUE INDEX "key_events_expired_once" ON "key_events"("key_id") WHERE "kind" = 'expired';

-- key.list pages across tenants (admin) newest first.
CREATE INDEX "api_keys_created_at_id_idx" ON "api_keys"("created_at", "id");

-- Requests authenticated through GANTRY_LEGACY_KEYS, counted from the gateways' usage reports.
CREATE TABLE "legacy_usage" (
    "key_id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "requests" BIGINT NOT NULL DEFAULT 0,
    "first_used_at" TIMESTAMPTZ(3) NOT NULL,
    "last_used_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "legacy_usage_pkey" PRIMARY KEY ("key_id")
);
