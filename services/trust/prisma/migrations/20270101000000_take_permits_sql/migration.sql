-- trust service: take_permits (the batched permit consume, src/permits.ts) in SQL instead of
-- PL/pgSQL, same statement, same arguments, same result. Postgres 18 keeps a SQL function's
-- statement in the plan cache, so with the function's plan_cache_mode it is planned once per
-- connection as before, and the PL/pgSQL layer (RETURN QUERY into a tuplestore, then out again)
-- is gone. One backend, batches of 3 consumes, backend CPU a statement in four alternating
-- rounds (/proc schedstat): PL/pgSQL 725/612/504/696 us, SQL 715/479/490/647 us, the bare
-- statement on a connection with force_generic_plan 645/492/508/580 us (the automatic plan
-- cache, re-planning every call: 1,318-1,637 us). So the connection-wide setting would save no
-- more than this, and it would apply to every statement of the service.
-- On a Postgres before 18 a SQL function's statements are planned on every call: the bundled and
-- test Postgres are 18 (k8s/gantry/values.yaml, infra/runner/postgres.ts).
-- SECURITY INVOKER (the default): row-level security applies to the caller as before.
CREATE OR REPLACE FUNCTION "take_permits"(
    p_tenant TEXT, p_run_ids TEXT[], p_key_ids TEXT[], p_abilities TEXT[], p_input_hashes TEXT[],
    p_request_ids TEXT[], p_now TIMESTAMPTZ)
RETURNS TABLE (ord BIGINT, id TEXT)
LANGUAGE sql
SET plan_cache_mode = force_generic_plan
AS $$
    WITH calls AS (
      SELECT c.*, row_number() OVER (PARTITION BY c.run_id, c.key_id, c.ability, c.input_hash ORDER BY c.ord) AS k
        FROM unnest(p_run_ids, p_key_ids, p_abilities, p_input_hashes, p_request_ids)
             WITH ORDINALITY AS c(run_id, key_id, ability, input_hash, request_id, ord)),
    taken AS (
      SELECT g.run_id, g.key_id, g.ability, g.input_hash, t.id,
             row_number() OVER (PARTITION BY g.run_id, g.key_id, g.ability, g.input_hash ORDER BY t.position) AS k
        FROM (SELECT run_id, key_id, ability, input_hash, count(*) AS n FROM calls GROUP BY 1, 2, 3, 4) g
        CROSS JOIN LATERAL (
          SELECT p.id, p.position FROM trust.permits p
           WHERE p.run_id = g.run_id AND p.ability = g.ability AND p.input_hash = g.input_hash
             AND p.status = 'issued' AND p.tenant = p_tenant
             AND EXISTS (SELECT 1 FROM trust.runs r
                          WHERE r.id = g.run_id AND r.tenant = p_tenant AND r.key_id = g.key_id AND r.expires_at > p_now)
           ORDER BY p.position LIMIT g.n FOR UPDATE SKIP LOCKED) t)
    UPDATE trust.permits p SET status = 'used', used_at = p_now, request_id = c.request_id
      FROM calls c JOIN taken t USING (run_id, key_id, ability, input_hash, k)
     WHERE p.id = t.id AND p.status = 'issued'
    RETURNING c.ord, p.id
$$;
