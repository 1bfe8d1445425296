/**
 * GANTRY_DISABLED_ABILITIES (kit/src/service.ts): an operator's switch. A listed ability answers
 * 501 saying it was switched off, discovery (Describe) shows it not wired, the service's other
 * abilities keep working, ids another service owns are left to it, and an id that is no ability
 * stops the start instead of leaving on what the operator meant to switch off.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { startService } from "@gantry/infra/testing/service.ts";

test("a switched-off ability answers 501 with the reason; the rest of the service works", async () => {
  const s = await startService("workspace", { GANTRY_DISABLED_ABILITIES: " contact.get, payout.send " });
  try {
    const contact = await s.call("contact.create", { name: "Ada" });
    await assert.rejects(
      s.call("contact.get", { id: contact.id }),
      (err: Error & { code?: string; reason?: string }) => {
        assert.equal(err.code, "not_implemented");
        assert.match(err.message, /contact\.get is switched off on this deployment/);
        assert.match(String(err.reason), /GANTRY_DISABLED_ABILITIES on the workspace service/);
        return true;
      },
    );
    const listed = await s.call("contact.list", {});
    assert.equal(listed.items.length, 1);
  } finally {
    await s.stop();
  }
});

test("an id that is no ability stops the start, naming it", async () => {
  await assert.rejects(
    startService("workspace", { GANTRY_DISABLED_ABILITIES: "contact.gte" }),
    /GANTRY_DISABLED_ABILITIES names 'contact\.gte', which is no ability/,
  );
});
