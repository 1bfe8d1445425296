/**
 * integration.app.toolkits and integration.app.tools over the one-service harness: the shipped
 * registry beside the directory's (on by default), by name, filtered, paginated with the kit's cursor (bad cursor 400), unknown toolkit 404
 * naming the field; every result checked against the catalogue's output schema by the harness.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { type ConnectionsTest, startConnections } from "../test/helpers.ts";

let t: ConnectionsTest;
before(async () => {
  t = await startConnections();
});
after(async () => t?.stop());

test("integration.app.toolkits: the shipped three among the directory's, by name, query and category filters, pagination", async () => {
  // The directory is on by default: the first page of thousands, by name, with a cursor to the rest.
  const all = await t.s.call("integration.app.toolkits", {});
  assert.equal(all.items.length, 20);
  assert.ok(all.nextCursor);
  const names = all.items.map((k: any) => k.name);
  assert.deepEqual(names, [...names].sort(new Intl.Collator().compare));
  // The shipped toolkits keep their slugs and what they declare; the directory's GitHub is another slug.
  const shipped = new Map<string, any>();
  for (const slug of ["github", "slack", "stripe"]) {
    const found = (await t.s.call("integration.app.toolkits", { query: slug })).items;
    assert.equal(found[0].slug, slug, `the shipped ${slug} comes first for its own name`);
    shipped.set(slug, found[0]);
  }
  assert.deepEqual(
    [...shipped.values()].map((k) => [k.authScheme, k.toolCount]),
    [
      ["oauth2", 3],
      ["oauth2", 2],
      ["api_key", 3],
    ],
  );
  // One vocabulary of categories (APIs.guru's): the shipped toolkits filter with the directory's.
  for (const [category, slug] of [
    ["payment", "stripe"],
    ["developer_tools", "github"],
    ["messaging", "slack"],
  ] as const) {
    const listed = (await t.s.call("integration.app.toolkits", { category, limit: 100 })).items;
    assert.ok(
      listed.some((k: any) => k.slug === slug),
      `the shipped ${slug} is in "${category}"`,
    );
    assert.ok(listed.length > 10, `${listed.length} toolkits in "${category}", the directory's among them`);
    assert.ok(listed.every((k: any) => k.categories.includes(category)));
  }
  // A category no toolkit has is a 400 naming the field and the vocabulary, not an empty page.
  await assert.rejects(t.s.call("integration.app.toolkits", { category: "payments" }), (err: any) => {
    assert.equal(err.code, "validation_failed");
    const [detail] = err.details;
    assert.equal(detail.path, "/input/category");
    assert.equal(detail.code, "enum");
    for (const known of ["payment", "developer_tools", "messaging"])
      assert.ok(detail.params.allowedValues.includes(known));
    assert.ok(!detail.params.allowedValues.includes("payments"));
    assert.match(err.reason, /payment, /);
    return true;
  });
  const chat = await t.s.call("integration.app.toolkits", { query: "chat" });
  assert.equal(chat.items[0].slug, "slack", "a shipped toolkit the query is about comes first");
  // A shipped toolkit sharing one word of a query about something else ("customer": Stripe's
  // description) does not crowd the directory's answers.
  for (const query of ["send an sms to a customer", "translate text into french", "weather forecast for a city"]) {
    const top = (await t.s.call("integration.app.toolkits", { query, limit: 5 })).items.map((k: any) => k.slug);
    assert.equal(top.length, 5, query);
    for (const slug of ["github", "slack", "stripe"]) assert.ok(!top.includes(slug), `${query}: ${top.join(", ")}`);
  }
  const p1 = await t.s.call("integration.app.toolkits", { limit: 2 });
  assert.equal(p1.items.length, 2);
  const p2 = await t.s.call("integration.app.toolkits", { limit: 2, cursor: p1.nextCursor });
  assert.deepEqual(
    [...p1.items, ...p2.items].map((k: any) => k.slug),
    all.items.slice(0, 4).map((k: any) => k.slug),
    "the second page continues where the first stopped",
  );
  await assert.rejects(t.s.call("integration.app.toolkits", { cursor: "bm9wZQ" }), (err: any) => {
    assert.equal(err.code, "validation_failed");
    assert.equal(err.details[0].code, "invalid_cursor");
    return true;
  });
});

test("integration.app.tools: latest versions with pinned ids and input schemas; unknown toolkit is 404", async () => {
  const gh = await t.s.call("integration.app.tools", { toolkit: "github" });
  assert.deepEqual(
    gh.items.map((x: any) => x.id),
    ["github.create_issue@2", "github.get_repo@1", "github.list_repo_issues@1"],
  );
  const create = gh.items[0];
  assert.equal(create.latest, true);
  assert.equal(create.slug, "GITHUB_CREATE_ISSUE");
  assert.equal(create.inputSchema.type, "object");
  assert.ok(create.inputSchema.required.includes("title"));
  const issue = await t.s.call("integration.app.tools", { toolkit: "github", query: "repository" });
  assert.deepEqual(
    issue.items.map((x: any) => x.name),
    ["get_repo", "list_repo_issues"],
  );
  const page1 = await t.s.call("integration.app.tools", { toolkit: "stripe", limit: 1 });
  const page2 = await t.s.call("integration.app.tools", { toolkit: "stripe", limit: 5, cursor: page1.nextCursor });
  assert.deepEqual(
    [...page1.items, ...page2.items].map((x: any) => x.name),
    ["create_refund", "get_customer", "list_charges"],
  );
  await assert.rejects(t.s.call("integration.app.tools", { toolkit: "gitlab" }), (err: any) => {
    assert.equal(err.code, "not_found");
    assert.equal(err.details[0].path, "/input/toolkit");
    assert.match(err.message, /known: github, slack, stripe/);
    return true;
  });
});
