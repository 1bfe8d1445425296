-- The ledger's (tenant, ref_id) index has no reader: every statement of the service finds a
-- record's lines by journal (the unique journal key) or reads the balance row, and no ability
-- lists ledger lines. It cost an index entry per ledger line, four per sandbox payout: 403 of the
-- 4,410 bytes of WAL a payout writes (scripts/cost-per-call.ts with WAL=1). The ledger stays
-- indexed by id and by journal.
DROP INDEX "ledger_entries_tenant_ref_id_idx";
