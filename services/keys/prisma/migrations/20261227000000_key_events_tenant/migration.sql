-- keys: the event trail gets a tenant column, so row-level security covers it like every tenant
-- table (issue 27, item 8: before, any scope could read every tenant's trail). It is always the
-- key's tenant: a trigger fills it from api_keys, so no writer can name another, and it is
-- backfilled here.
ALTER TABLE "key_events" ADD COLUMN "tenant" TEXT NOT NULL DEFAULT '';
UPDATE "key_events" e SET "tenant" = k."tenant" FROM "api_keys" k WHERE k."id" = e."key_id";
CREATE FUNCTION "key_events_tenant"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT k."tenant" INTO NEW."tenant" FROM "keys"."api_keys" k WHERE k."id" = NEW."key_id";
  RETURN NEW;
END;
$$;
CREATE TRIGGER "key_events_tenant" BEFORE INSERT ON "key_events"
  FOR EACH ROW EXECUTE FUNCTION "key_events_tenant"();
CREATE INDEX "key_events_tenant_idx" ON "key_events"("tenant");
