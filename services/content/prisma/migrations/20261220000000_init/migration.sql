-- The content service's tables (issue 16): deliveries and their recipients, document artifacts,
-- help-centre guides, idempotency records. Row-level security is applied by the kit at start (every
-- table with a tenant column).
CREATE TABLE "deliveries" (
    "id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "channel" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "transport" TEXT NOT NULL,
    "credential_source" TEXT NOT NULL,
    "connection_id" TEXT,
    "from_address" TEXT NOT NULL,
    "reply_to" TEXT,
    "subject" TEXT,
    "text_body" TEXT,
    "html_body" TEXT,
    "message_id" TEXT,
    "error" TEXT,
    "request_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "sent_at" TIMESTAMPTZ(3),
    CONSTRAINT "deliveries_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "deliveries_tenant_created_at_idx" ON "deliveries"("tenant", "created_at");

CREATE TABLE "delivery_recipients" (
    "tenant" TEXT NOT NULL,
    "delivery_id" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "address" TEXT NOT NULL,
    "field" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "response_code" INTEGER,
    "response" TEXT,
    CONSTRAINT "delivery_recipients_pkey" PRIMARY KEY ("delivery_id", "position")
);
CREATE INDEX "delivery_recipients_tenant_delivery_id_idx" ON "delivery_recipients"("tenant", "delivery_id");
ALTER TABLE "delivery_recipients" ADD CONSTRAINT "delivery_recipients_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "artifacts" (
    "id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "format" TEXT NOT NULL,
    "filename" TEXT NOT NULL,
    "content_type" TEXT NOT NULL,
    "bytes" INTEGER NOT NULL,
    "pages" INTEGER,
    "sha256" TEXT NOT NULL,
    "storage_key" TEXT NOT NULL,
    "request_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "artifacts_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "artifacts_tenant_created_at_idx" ON "artifacts"("tenant", "created_at");
CREATE INDEX "artifacts_expires_at_idx" ON "artifacts"("expires_at");

CREATE TABLE "guides" (
    "id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "product" TEXT NOT NULL,
    "locale" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "area" TEXT NOT NULL,
    "summary" TEXT,
    "time" TEXT,
    "cost" TEXT,
    "route" TEXT,
    "order" DOUBLE PRECISION,
    "path" TEXT NOT NULL,
    "sha256" TEXT NOT NULL,
    "request_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "published_at" TIMESTAMPTZ(3),
    CONSTRAINT "guides_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "guides_tenant_product_locale_slug_key" ON "guides"("tenant", "product", "locale", "slug");

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
