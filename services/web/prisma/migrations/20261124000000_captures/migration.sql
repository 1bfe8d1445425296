-- web service: captures of registered official pages (research.verify, action `capture`), per tenant.
-- Row-level security is applied by the kit at start (every table with a tenant column).
CREATE TABLE "captures" (
    "id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "final_url" TEXT NOT NULL,
    "status" INTEGER NOT NULL,
    "text" TEXT NOT NULL,
    "content_sha256" TEXT NOT NULL,
    "captured_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "captures_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "captures_tenant_url_captured_at_idx" ON "captures"("tenant", "url", "captured_at");
