/**
 * The ranking behind capability.discover: ids, descriptions and input field names match, plurals
 * and synonyms are understood, exact ids win, and nothing outside the given abilities is returned.
 * (The ability itself, with scopes and live status, is tested through the gateway in discovery.test.ts.)
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { catalogue } from "@gantry/proto/catalogue";
import { rank, words } from "../src/discovery/search.ts";

const top = (q: string, n = 1) =>
  rank(q, catalogue)
    .slice(0, n)
    .map((r) => r.def.id);

describe("capability ranking", () => {
  test("words: lower case, camelCase and ids split, stop words and plural endings dropped", () => {
    assert.deepEqual(words("Send the Invoices to idempotencyKey memory.search"), [
      "send",
      "invoice",
      "idempotency",
      "key",
      "memory",
      "search",
    ]);
  });

  test("an exact id ranks first, an id fragment near the top", () => {
    assert.deepEqual(top("memory.search"), ["memory.search"]);
    assert.ok(top("payout.", 6).every((id) => id.startsWith("payout.")));
  });

  test("descriptions and field names match, best covering match first", () => {
    assert.deepEqual(top("create a contact"), ["contact.create"]);
    assert.deepEqual(top("record a decision"), ["decision.record"]);
    assert.deepEqual(top("rotate my api key"), ["key.rotate"]);
    assert.deepEqual(top("summarize text"), ["document.summarize"]);
    assert.ok(top("idempotencyKey", 20).includes("contact.create"), "field names are indexed");
  });

  test("synonyms: mail → email/message, remember → memory.save, browse a website → web.browse", () => {
    assert.ok(["email.render", "message.send", "message.send_markdown"].includes(top("send an invoice by mail")[0]));
    assert.deepEqual(top("remember this"), ["memory.save"]);
    assert.deepEqual(top("browse a website"), ["web.browse"]);
  });

  test("only the given abilities are ranked, and nonsense matches nothing", () => {
    const contacts = catalogue.filter((a) => a.area === "contact");
    assert.ok(rank("send email", contacts).every((r) => r.def.area === "contact"));
    assert.deepEqual(rank("xyzzy plugh", catalogue), []);
  });

  test("each result says what matched", () => {
    const [first] = rank("contact phone", catalogue);
    assert.ok(first.matched.length > 0);
    assert.ok(first.score > 0);
  });
});
