-- A record is looked up by its provider's reference only when a provider's webhook names it
-- (src/webhooks.ts). A sandbox record is never named by one: the sandbox sends nothing anywhere and
-- makes its reference (`sandbox_<id>`) in process. Yet every sandbox payment and payout took an entry
-- in (provider, provider_reference): 120 of the bytes of WAL each writes (scripts/cost-per-call.ts
-- with WAL=1). Both indexes hold records of a live provider only; the webhook lookups ask for
-- `mode <> 'sandbox'`, so they plan on them.
DROP INDEX "payments_provider_provider_reference_idx";
CREATE INDEX "payments_provider_provider_reference_idx" ON "payments"("provider", "provider_reference") WHERE "mode" <> 'sandbox';
DROP INDEX "payouts_provider_provider_reference_idx";
CREATE INDEX "payouts_provider_provider_reference_idx" ON "payouts"("provider", "provider_reference") WHERE "mode" <> 'sandbox';
