-- keys: the kit outbox's relay claims rows by id (kit/src/outbox.ts: it deletes the due rows in the
-- order they were written, and writes only a failed row back). Its query plans on the primary key
-- and filters next_attempt_at; the (next_attempt_at, id) index was only written, one entry a row.
DROP INDEX "outbox_next_attempt_at_idx";
