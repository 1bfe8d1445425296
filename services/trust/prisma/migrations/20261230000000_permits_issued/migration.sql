-- trust service: ConsumePermit (src/permits.ts) takes the first entry of `permits_issued_idx`, the
-- issued permits of a run by ability, input and position; a used permit leaves it. Before, the
-- statement read every permit of the run for that ability and input through an index on
-- (run_id, ability, input_hash), used ones included, and sorted them: a run of 50 permits cost about
-- 150 buffer reads and 0.5–1.8 ms of Postgres time per call. That index goes, so the planner has one
-- choice; the refusal path (a run's permits for an ability) and the cascade from runs use (run_id).
-- Partial indexes cannot be written in schema.prisma; this one is declared only here.
DROP INDEX "permits_run_id_ability_input_hash_idx";
CREATE INDEX "permits_run_id_idx" ON "permits"("run_id");
CREATE INDEX "permits_issued_idx" ON "permits"("run_id", "ability", "input_hash", "position") WHERE "status" = 'issued';
