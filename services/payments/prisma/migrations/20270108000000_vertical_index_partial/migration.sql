-- The (tenant, vertical) indexes serve payment.list's and payout.list's `vertical` filter only
-- (`vertical = <name>`), yet a record made without a vertical, whose vertical is NULL, took an entry
-- too: 72 of the ~1,530 bytes of WAL a payment.initiate writes and of the ~3,920 of a payout.send
-- (scripts/cost-per-call.ts with WAL=1). Partial, they hold records made under a vertical only; the
-- filter implies the predicate, so it keeps using them.
DROP INDEX "payments_tenant_vertical_idx";
CREATE INDEX "payments_tenant_vertical_idx" ON "payments"("tenant", "vertical") WHERE "vertical" IS NOT NULL;
DROP INDEX "payouts_tenant_vertical_idx";
CREATE INDEX "payouts_tenant_vertical_idx" ON "payouts"("tenant", "vertical") WHERE "vertical" IS NOT NULL;
