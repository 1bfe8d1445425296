-- trust service: no statement reads receipts by run_id (a run's receipts are found by request id,
-- from its permits and claims: src/runs.ts), yet every receipt appended took an entry in this index,
-- about 90 bytes of WAL and an index insert per call made under a run.
DROP INDEX "receipts_run_id_idx";
