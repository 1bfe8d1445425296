-- memory: decisions and lessons carry the vertical they were recorded in (issue 32 item 7): the
-- call's context.verticalId, or null when the call named none. decision.list filters by it. Earlier
-- rows stay null; adding a column rewrites no lesson, so the inbox's append-only trigger is not involved.
ALTER TABLE "decisions" ADD COLUMN "vertical" TEXT;
ALTER TABLE "lessons" ADD COLUMN "vertical" TEXT;

CREATE INDEX "decisions_tenant_vertical_idx" ON "decisions"("tenant", "vertical");
