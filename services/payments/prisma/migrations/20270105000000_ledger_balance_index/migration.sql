-- The index that summed a balance out of the ledger (tenant, settlement account, currency,
-- account) has had no reader since balances became rows (20270102000000_balances): the payout
-- check, payout.balance and a batch's check read the `balances` row. It still cost an index entry
-- per ledger line, four per sandbox payout: 386 of the 4,804 bytes of WAL a payout writes
-- (scripts/cost-per-call.ts with WAL=1). The ledger is still indexed by journal (unique) and by
-- the record it books (tenant, ref_id).
DROP INDEX "ledger_entries_tenant_settlement_account_currency_account_idx";
