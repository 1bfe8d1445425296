-- keys: audit records are kept AUDIT_RETENTION_DAYS and then deleted in batches, oldest first
-- (src/audit-retention.ts, issue 30). The sweep finds the oldest rows through this index; `at` grows
-- with time, so its inserts land on the index's right edge and cost about the same at any size.
CREATE INDEX "audit_records_at_idx" ON "audit_records"("at");
