-- trust service: a log's leaves (level 0 of its tree) are read from the receipts' own leaf_hash by
-- (tenant, log_index), through receipts_tenant_log_index_key (src/log-nodes.ts, src/tiles.ts), so
-- log_nodes keeps levels 1 and up. Each receipt appended used to write its leaf twice: a log_nodes
-- row and its primary-key entry beside the receipt, about a sixth of a run call's WAL.
DELETE FROM "log_nodes" WHERE "level" = 0;
