-- Records carry the vertical they were made in (issue 32 item 7): the call's context.verticalId, or
-- null when the call named none. payment.list and payout.list filter by it; a batch keeps it too,
-- and each of its items carries it. Earlier rows stay null.
ALTER TABLE "payments" ADD COLUMN "vertical" TEXT;
ALTER TABLE "payout_batches" ADD COLUMN "vertical" TEXT;
ALTER TABLE "payouts" ADD COLUMN "vertical" TEXT;

CREATE INDEX "payments_tenant_vertical_idx" ON "payments"("tenant", "vertical");
CREATE INDEX "payouts_tenant_vertical_idx" ON "payouts"("tenant", "vertical");
