-- memory: a memory carries the vertical it was saved in (issue 32 item 7): the saving call's
-- context.verticalId, kept by a later save that names none; null when no save named one. Earlier
-- rows stay null. No index: memory.search filters by vertical in the partition it already holds in
-- memory (or in Weaviate), never with a query on this table.
ALTER TABLE "memories" ADD COLUMN "vertical" TEXT;
