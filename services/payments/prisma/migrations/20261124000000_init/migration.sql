-- payments service: payments and their status history, payout recipients, payout batches and
-- payouts, the double-entry ledger, processed provider webhook events, and idempotency records.
-- Money is integer minor units (BIGINT). Every table carries "tenant" and is put under row-level
-- security by the kit after migrating.
CREATE TABLE "payments" (
    "id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "amount_minor" BIGINT NOT NULL,
    "currency" TEXT NOT NULL,
    "fee_minor" BIGINT,
    "provider" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "credential_source" TEXT NOT NULL,
    "checkout_url" TEXT,
    "provider_reference" TEXT,
    "description" TEXT,
    "customer_email" TEXT,
    "callback_url" TEXT,
    "recipient_id" TEXT,
    "contact_id" TEXT,
    "lead_id" TEXT,
    "failure_code" TEXT,
    "failure_message" TEXT,
    "request_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3),
    "succeeded_at" TIMESTAMPTZ(3),
    "refunded_at" TIMESTAMPTZ(3),
    CONSTRAINT "payments_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "payments_status_check" CHECK ("status" IN ('pending', 'processing', 'succeeded', 'failed', 'cancelled', 'expired', 'refunded')),
    CONSTRAINT "payments_amount_check" CHECK ("amount_minor" > 0),
    CONSTRAINT "payments_mode_check" CHECK ("mode" IN ('sandbox', 'live'))
);
CREATE INDEX "payments_tenant_created_at_id_idx" ON "payments"("tenant", "created_at", "id");
CREATE INDEX "payments_provider_provider_reference_idx" ON "payments"("provider", "provider_reference");

CREATE TABLE "payment_events" (
    "id" BIGSERIAL NOT NULL,
    "tenant" TEXT NOT NULL,
    "payment_id" TEXT NOT NULL,
    "from_status" TEXT,
    "to_status" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "provider_event_id" TEXT,
    "at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "payment_events_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "payment_events_source_check" CHECK ("source" IN ('api', 'webhook', 'poll'))
);
CREATE INDEX "payment_events_tenant_payment_id_id_idx" ON "payment_events"("tenant", "payment_id", "id");
ALTER TABLE "payment_events" ADD CONSTRAINT "payment_events_payment_id_fkey" FOREIGN KEY ("payment_id") REFERENCES "payments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "recipients" (
    "id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "credential_source" TEXT NOT NULL,
    "account_fingerprint" TEXT NOT NULL,
    "account_name" TEXT NOT NULL,
    "account_number_last4" TEXT NOT NULL,
    "bank_code" TEXT,
    "bank_name" TEXT,
    "country" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "provider_reference" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "verified_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "recipients_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "recipients_tenant_provider_mode_currency_account_fingerprint_key" ON "recipients"("tenant", "provider", "mode", "currency", "account_fingerprint");

CREATE TABLE "payout_batches" (
    "id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "description" TEXT,
    "idempotency_key" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "credential_source" TEXT NOT NULL,
    "request_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "completed_at" TIMESTAMPTZ(3),
    CONSTRAINT "payout_batches_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "payout_batches_status_check" CHECK ("status" IN ('pending', 'processing', 'completed', 'partially_failed', 'failed'))
);
CREATE INDEX "payout_batches_tenant_created_at_id_idx" ON "payout_batches"("tenant", "created_at", "id");

CREATE TABLE "payouts" (
    "id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "batch_id" TEXT,
    "position" INTEGER NOT NULL DEFAULT 0,
    "recipient_id" TEXT NOT NULL,
    "account_name" TEXT NOT NULL,
    "account_number_last4" TEXT NOT NULL,
    "bank_code" TEXT,
    "bank_name" TEXT,
    "country" TEXT NOT NULL,
    "amount_minor" BIGINT NOT NULL,
    "currency" TEXT NOT NULL,
    "fee_minor" BIGINT,
    "status" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "credential_source" TEXT NOT NULL,
    "description" TEXT,
    "reference" TEXT,
    "idempotency_key" TEXT,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "provider_reference" TEXT,
    "failure_code" TEXT,
    "failure_message" TEXT,
    "request_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "paid_at" TIMESTAMPTZ(3),
    CONSTRAINT "payouts_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "payouts_status_check" CHECK ("status" IN ('pending', 'processing', 'paid', 'failed', 'cancelled', 'reversed')),
    CONSTRAINT "payouts_amount_check" CHECK ("amount_minor" > 0)
);
CREATE INDEX "payouts_tenant_created_at_id_idx" ON "payouts"("tenant", "created_at", "id");
CREATE INDEX "payouts_tenant_batch_id_position_idx" ON "payouts"("tenant", "batch_id", "position");
CREATE INDEX "payouts_provider_provider_reference_idx" ON "payouts"("provider", "provider_reference");
ALTER TABLE "payouts" ADD CONSTRAINT "payouts_batch_id_fkey" FOREIGN KEY ("batch_id") REFERENCES "payout_batches"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "ledger_entries" (
    "id" BIGSERIAL NOT NULL,
    "tenant" TEXT NOT NULL,
    "journal_id" TEXT NOT NULL,
    "account" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "amount_minor" BIGINT NOT NULL,
    "ref_type" TEXT NOT NULL,
    "ref_id" TEXT NOT NULL,
    "memo" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "ledger_entries_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "ledger_entries_account_check" CHECK ("account" IN ('available', 'pending', 'reserved', 'customer_payments', 'fees', 'payouts_sent', 'refunds')),
    CONSTRAINT "ledger_entries_amount_check" CHECK ("amount_minor" <> 0)
);
CREATE INDEX "ledger_entries_tenant_currency_account_idx" ON "ledger_entries"("tenant", "currency", "account");
CREATE INDEX "ledger_entries_tenant_ref_id_idx" ON "ledger_entries"("tenant", "ref_id");
-- A journal posts once: the same movement of the same record cannot be booked twice.
CREATE UNIQUE INDEX "ledger_entries_journal_account_key" ON "ledger_entries"("journal_id", "account", "currency");

-- Double entry, enforced by the database: at commit, every journal touched sums to zero per currency.
CREATE FUNCTION "ledger_journal_balanced"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (
    SELECT 1 FROM "payments"."ledger_entries" WHERE "journal_id" = NEW."journal_id"
    GROUP BY "currency" HAVING SUM("amount_minor") <> 0
  ) THEN
    RAISE EXCEPTION 'ledger journal % does not balance', NEW."journal_id" USING ERRCODE = '23514';
  END IF;
  RETURN NULL;
END;
$$;
CREATE CONSTRAINT TRIGGER "ledger_entries_balanced" AFTER INSERT OR UPDATE ON "ledger_entries"
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "ledger_journal_balanced"();
-- The ledger is append-only.
CREATE FUNCTION "ledger_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger entries are append-only' USING ERRCODE = '42501';
END;
$$;
CREATE TRIGGER "ledger_entries_append_only" BEFORE UPDATE OR DELETE ON "ledger_entries"
    FOR EACH ROW EXECUTE FUNCTION "ledger_append_only"();

CREATE TABLE "webhook_events" (
    "provider" TEXT NOT NULL,
    "event_id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "ref_id" TEXT,
    "received_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "webhook_events_pkey" PRIMARY KEY ("provider", "event_id")
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
