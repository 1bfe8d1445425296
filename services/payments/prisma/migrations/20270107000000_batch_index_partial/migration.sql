-- Only batch payouts are read by batch (deriveBatch lists a batch's items by batch_id), yet the
-- (tenant, batch_id, position) index took an entry for every payout, single sends included, whose
-- batch_id is NULL: 81 of the 4,000 bytes of WAL a sandbox payout.send writes (scripts/cost-per-call.ts
-- with WAL=1). Partial, it holds batch items only; `batch_id = <id>` implies the predicate, so the
-- batch reads keep using it.
DROP INDEX "payouts_tenant_batch_id_position_idx";
CREATE INDEX "payouts_tenant_batch_id_position_idx" ON "payouts"("tenant", "batch_id", "position") WHERE "batch_id" IS NOT NULL;
