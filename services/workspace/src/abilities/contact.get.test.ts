/**
 * contact.get on the one-service harness (real Postgres, NATS and gRPC; no gateway): a contact is
 * read back by id in its tenant, and by id from another tenant it does not exist.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startService, type ServiceHarness } from "@gantry/infra/testing/service.ts";
import type { Context } from "../context.ts";

let s: ServiceHarness<Context>;
before(async () => {
  s = await startService<Context>("workspace");
});
after(async () => s?.stop());

test("a contact is read back by id in its own tenant, normalised as created", async () => {
  const created = await s.call(
    "contact.create",
    { name: "  Ada Obi ", phone: "+234 803 123 4567" },
    { tenant: "acme" },
  );
  const read = await s.call("contact.get", { id: created.id }, { tenant: "acme" });
  assert.equal(read.id, created.id);
  assert.equal(read.name, "Ada Obi");
  assert.equal(read.phone, "+2348031234567");
});

test("another tenant's contact id answers not_found, like an id that never existed", async () => {
  const created = await s.call("contact.create", { name: "Private" }, { tenant: "acme" });
  await assert.rejects(s.call("contact.get", { id: created.id }, { tenant: "beta" }), { code: "not_found" });
  await assert.rejects(s.call("contact.get", { id: "ctc_NOPE" }, { tenant: "acme" }), { code: "not_found" });
});

test("input is validated by the service itself, not only by the gateway", async () => {
  await assert.rejects(s.call("contact.get", {}, { tenant: "acme" }), { code: "validation_failed" });
});
