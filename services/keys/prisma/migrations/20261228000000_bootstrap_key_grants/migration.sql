-- keys: the first admin key holds everything its scope `*` says (issue 32, item 2): every memory
-- collection and every guide product (`*` entries) and the sub-tenant flag. Keys generated or
-- registered at start before this release had none of them, so memory.* and guide.publish answered
-- 403 with the only key a new deployment has. This widens those keys, and the successors key.rotate
-- minted from them (the same key to their holder), once; keys issued through key.issue are untouched.
WITH RECURSIVE first_keys AS (
  SELECT "id", "rotated_to" FROM "api_keys"
   WHERE "origin" IN ('bootstrap', 'bootstrap-env') AND "admin" AND "tenant" = 'platform'
  UNION
  SELECT k."id", k."rotated_to" FROM "api_keys" k JOIN first_keys f ON k."id" = f."rotated_to"
)
UPDATE "api_keys" SET
  "collections" = CASE WHEN '*' = ANY("collections") THEN "collections" ELSE array_append("collections", '*') END,
  "products" = CASE WHEN '*' = ANY("products") THEN "products" ELSE array_append("products", '*') END,
  "sub_tenants" = true
 WHERE "id" IN (SELECT "id" FROM first_keys);
