-- web service: screenshots (web.browse, qa.browser_check) served by signed, expiring links at
-- GET /v1/files/web/screenshots/<id>.png. Rows past `expires_at` are never served and are deleted
-- when the tenant stores its next screenshot.
CREATE TABLE "screenshots" (
    "id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "png" BYTEA NOT NULL,
    "sha256" TEXT NOT NULL,
    "width" INTEGER NOT NULL,
    "height" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "screenshots_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "screenshots_tenant_expires_at_idx" ON "screenshots"("tenant", "expires_at");
