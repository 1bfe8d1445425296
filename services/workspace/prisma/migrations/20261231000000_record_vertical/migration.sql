-- workspace: a workflow run carries the vertical it was triggered in (issue 32 item 7), as contacts,
-- leads, tasks and docs already do: the call's context.verticalId, or null when the call named none.
-- No ability lists runs, so no index. Earlier runs stay null.
ALTER TABLE "workflow_runs" ADD COLUMN "vertical" TEXT;
