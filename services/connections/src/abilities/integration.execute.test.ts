/**
 * integration.execute and integration.app.execute (issue 14 item 5), integration.app.connect and
 * .connections, integration.search `tools`, against real provider APIs on loopback: Stripe's own
 * stripe-mock (API-key toolkit, form bodies) and a GitHub REST stand-in that accepts only the bearer
 * token the connection holds (OAuth toolkit, consent through the real authorization server).
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { withTenant } from "@gantry/kit";
import { openTokens } from "../credentials.ts";
import { type ConnectionsTest, startConnections } from "../test/helpers.ts";
import {
  freePort,
  type GithubApi,
  STRIPE_MOCK_SKIP,
  type StripeMock,
  startGithubApi,
  startStripeMock,
} from "../test/providers.ts";

let t: ConnectionsTest;
let stripe: StripeMock | null;
let github: GithubApi;

const owner = { tenant: "exec-co", keyId: "key_owner" };
const agent = { tenant: "exec-co", keyId: "key_agent" };
const stranger = { tenant: "exec-co", keyId: "key_stranger" };
const otherTenant = { tenant: "other-co", keyId: "key_owner" };
const SECRET_KEY = "sk_test_51ExecTestKeyNotARealOne0123456789";

before(async () => {
  stripe = await startStripeMock();
  github = await startGithubApi();
  const closed = await freePort(); // nothing listens: slack is unreachable
  t = await startConnections({
    providers: (auth) => ({ github: auth.providerConfig(), slack: auth.providerConfig() }),
    env: {
      CONNECTIONS_PROVIDER_TIMEOUT_MS: "3000",
      CONNECTIONS_TOOLKIT_BASE_URLS: JSON.stringify({
        github: github.url,
        slack: `http://127.0.0.1:${closed}/api`,
        ...(stripe ? { stripe: stripe.url } : {}),
      }),
    },
  });
});
after(async () => {
  await t?.stop();
  await github?.stop();
  await stripe?.stop();
});

/** The access token a connection holds now (read the way the service reads it). */
async function tokenOf(tenant: string, id: string): Promise<string> {
  return withTenant(tenant, async () => {
    const row = await t.s.ctx.db.connection.findFirstOrThrow({ where: { id } });
    return openTokens(t.s.ctx, row)?.access as string;
  });
}

async function refused(p: Promise<unknown>, code: string, path?: string, message?: RegExp): Promise<any> {
  let caught: any;
  await assert.rejects(p, (err: any) => {
    assert.equal(err.code, code, err.message);
    if (path)
      assert.ok(
        err.details?.some((d: any) => d.path === path),
        JSON.stringify(err.details),
      );
    if (message) assert.match(err.message, message);
    caught = err;
    return true;
  });
  return caught;
}

test("stripe (stripe-mock): connect with a secret key, run tools, idempotency, argument errors", {
  skip: STRIPE_MOCK_SKIP,
}, async () => {
  // A key Stripe refuses is not stored.
  await refused(
    t.s.call("integration.app.connect", { toolkit: "stripe", credentials: { secret_key: "rk_wrong" } }, owner),
    "validation_failed",
    "/input/credentials",
    /refused by Stripe \(HTTP 401\)/,
  );
  await refused(
    t.s.call("integration.app.connect", { toolkit: "stripe", credentials: { api_key: SECRET_KEY } }, owner),
    "validation_failed",
    "/input/credentials/secret_key",
  );
  const connected = await t.s.call(
    "integration.app.connect",
    { toolkit: "stripe", label: "Main account", credentials: { secret_key: SECRET_KEY } },
    owner,
  );
  assert.equal(connected.connection.status, "connected");
  assert.equal(connected.connection.kind, "app");
  assert.equal(connected.connection.authScheme, "api_key");
  assert.equal(connected.connection.label, "Main account");
  assert.equal(connected.authorizationUrl, null);
  const connectionId = connected.connection.id;

  const refund = await t.s.call(
    "integration.execute",
    {
      connectionId,
      toolId: "stripe.create_refund@1",
      arguments: { charge: "ch_123", amount: 500, metadata: { order: "o-77" } },
    },
    owner,
  );
  assert.equal(refund.status, 200, JSON.stringify(refund.body));
  assert.equal(refund.successful, true);
  assert.equal(refund.access, "owner");
  assert.equal(refund.toolId, "stripe.create_refund@1");
  assert.match(refund.id, /^exe_/);
  assert.match(refund.contentType, /application\/json/);
  assert.equal(refund.body.object, "refund");
  assert.equal(refund.body.charge, "ch_123");
  assert.equal(refund.body.amount, 500);

  // The same idempotencyKey replays the first result (stripe-mock makes a new refund id per request).
  const keyed = {
    connectionId,
    toolId: "stripe.create_refund@1",
    arguments: { charge: "ch_456", amount: 100 },
    idempotencyKey: "refund-o-78",
  };
  const first = await t.s.call("integration.execute", keyed, owner);
  const again = await t.s.call("integration.execute", keyed, owner);
  assert.equal(again.id, first.id);
  assert.equal(again.body.id, first.body.id);
  assert.equal(again.requestId, first.requestId);
  await refused(
    t.s.call("integration.execute", { ...keyed, arguments: { charge: "ch_456", amount: 200 } }, owner),
    "conflict",
    "/input/arguments",
  );

  // By slug, latest version, the only stripe account of the key; query parameters and path parameters.
  const charges = await t.s.call(
    "integration.app.execute",
    { tool: "STRIPE_LIST_CHARGES", arguments: { limit: 3 } },
    owner,
  );
  assert.equal(charges.status, 200);
  assert.equal(charges.body.object, "list");
  assert.equal(charges.connectionId, connectionId);
  const customer = await t.s.call(
    "integration.execute",
    { connectionId, toolId: "stripe.get_customer@1", arguments: { customer: "cus_123", expand: ["default_source"] } },
    owner,
  );
  assert.equal(customer.status, 200, JSON.stringify(customer.body));
  assert.equal(customer.body.object, "customer");

  // Arguments are checked against the pinned version's schema, each problem naming its field.
  const bad = await refused(
    t.s.call(
      "integration.execute",
      { connectionId, toolId: "stripe.create_refund@1", arguments: { amount: "lots", bogus: 1 } },
      owner,
    ),
    "validation_failed",
  );
  const paths = bad.details.map((d: any) => d.path).sort();
  assert.deepEqual(paths, ["/input/arguments/amount", "/input/arguments/bogus"]);
  await refused(
    t.s.call("integration.execute", { connectionId, toolId: "stripe.get_customer@1", arguments: {} }, owner),
    "validation_failed",
    "/input/arguments/customer",
  );
  // An explicit version that does not exist is 404, never the latest instead.
  await refused(
    t.s.call("integration.execute", { connectionId, toolId: "stripe.create_refund@2", arguments: {} }, owner),
    "not_found",
    "/input/toolId",
    /no version 2 \(versions: 1\)/,
  );
  // A tool of another toolkit does not run on this account.
  await refused(
    t.s.call(
      "integration.execute",
      { connectionId, toolId: "github.get_repo@1", arguments: { owner: "a", repo: "b" } },
      owner,
    ),
    "validation_failed",
    "/input/toolId",
    /is a github tool/,
  );
  // Another tenant: the connection does not exist there.
  await refused(
    t.s.call("integration.execute", { connectionId, toolId: "stripe.list_charges@1", arguments: {} }, otherTenant),
    "not_found",
    "/input/connectionId",
  );

  // The key is sealed at rest: no table of the schema holds it, nor does any result.
  const { rows } = await t.s.db.query(
    `SELECT 'connections' AS t, to_jsonb(c)::text AS row FROM connections.connections c
     UNION ALL SELECT 'idempotency', to_jsonb(i)::text FROM connections.idempotency_records i
     UNION ALL SELECT 'executions', to_jsonb(e)::text FROM connections.tool_executions e
     UNION ALL SELECT 'events', to_jsonb(v)::text FROM connections.connection_events v`,
  );
  assert.ok(rows.length > 5);
  for (const r of rows) assert.ok(!r.row.includes(SECRET_KEY), `${r.t} holds the secret key`);
  for (const r of rows) assert.ok(!r.row.includes("sk_test_51Exec"), `${r.t} holds part of the secret key`);
  for (const out of [connected, refund, first, charges, customer]) assert.ok(!JSON.stringify(out).includes(SECRET_KEY));
  // Every execution is in the audit table; the result is kept only where an idempotencyKey can replay it.
  const audit = await t.s.db.query(
    "SELECT tool_id, access, status, result IS NOT NULL AS kept FROM connections.tool_executions WHERE connection_id = $1 ORDER BY executed_at, id",
    [connectionId],
  );
  assert.deepEqual(
    audit.rows.map((r) => [r.tool_id, r.status, r.kept]),
    [
      ["stripe.create_refund@1", 200, false],
      ["stripe.create_refund@1", 200, true],
      ["stripe.list_charges@1", 200, false],
      ["stripe.get_customer@1", 200, false],
    ],
  );

  // integration.app.connections: the key's app accounts, newest first, paginated; others see none.
  for (const label of ["Second", "Third"])
    await t.s.call(
      "integration.app.connect",
      { toolkit: "stripe", label, credentials: { secret_key: SECRET_KEY } },
      owner,
    );
  const page1 = await t.s.call("integration.app.connections", { toolkit: "stripe", limit: 2 }, owner);
  assert.deepEqual(
    page1.items.map((c: any) => c.label),
    ["Third", "Second"],
  );
  const page2 = await t.s.call(
    "integration.app.connections",
    { toolkit: "stripe", limit: 2, cursor: page1.nextCursor },
    owner,
  );
  assert.deepEqual(
    page2.items.map((c: any) => c.label),
    ["Main account"],
  );
  assert.equal(page2.nextCursor, null);
  assert.equal((await t.s.call("integration.app.connections", {}, stranger)).items.length, 0);
  await refused(
    t.s.call("integration.app.connections", { cursor: "nope" }, owner),
    "validation_failed",
    "/input/cursor",
  );
  // Several stripe accounts now: running by slug needs a connectionId.
  await refused(
    t.s.call("integration.app.execute", { tool: "STRIPE_LIST_CHARGES", arguments: {} }, owner),
    "validation_failed",
    "/input/connectionId",
    /several connected stripe accounts/,
  );
});

test("github (bearer): the connection's token arrives; versions; shares; search; refresh on use; failures", async () => {
  const { completed } = await t.connect("github", owner);
  const connectionId = completed.connection.id;
  const token = await tokenOf(owner.tenant, connectionId);
  github.token = token;
  github.requests.length = 0;

  const issue = await t.s.call(
    "integration.execute",
    {
      connectionId,
      toolId: "github.create_issue@2",
      arguments: { owner: "acme", repo: "website", title: "Checkout button", labels: ["bug"], type: "Bug" },
    },
    owner,
  );
  assert.equal(issue.status, 201, JSON.stringify(issue.body));
  assert.equal(issue.body.title, "Checkout button");
  const sent = github.requests.at(-1)!;
  assert.equal(sent.method, "POST");
  assert.equal(sent.url, "/repos/acme/website/issues");
  assert.equal(sent.headers.authorization, `Bearer ${token}`);
  assert.equal(sent.headers["x-github-api-version"], "2022-11-28");
  assert.equal(sent.headers.accept, "application/vnd.github+json");
  assert.deepEqual(JSON.parse(sent.body), { title: "Checkout button", labels: ["bug"], type: "Bug" });
  assert.ok(!JSON.stringify(issue).includes(token));

  // Concurrent retries with one idempotencyKey: the provider is called once; every caller gets that result.
  const once = {
    connectionId,
    toolId: "github.create_issue@2",
    arguments: { owner: "acme", repo: "website", title: "Exactly once" },
    idempotencyKey: "issue-exactly-once",
  };
  const racing = await Promise.all(Array.from({ length: 5 }, () => t.s.call("integration.execute", once, owner)));
  assert.equal(new Set(racing.map((r) => r.body.number)).size, 1);
  assert.equal(new Set(racing.map((r) => r.id)).size, 1);
  assert.equal(github.requests.filter((r) => r.body.includes("Exactly once")).length, 1);

  // Version 1 is pinned to the older document, which has no `type`.
  await refused(
    t.s.call(
      "integration.execute",
      {
        connectionId,
        toolId: "github.create_issue@1",
        arguments: { owner: "acme", repo: "website", title: "x", type: "Bug" },
      },
      owner,
    ),
    "validation_failed",
    "/input/arguments/type",
  );
  assert.equal(
    (
      await t.s.call(
        "integration.execute",
        { connectionId, toolId: "github.create_issue@1", arguments: { owner: "acme", repo: "website", title: "x" } },
        owner,
      )
    ).status,
    201,
  );

  // The provider's errors are its answer, passed on; a path argument cannot climb out of its segment.
  const missing = await t.s.call(
    "integration.execute",
    { connectionId, toolId: "github.get_repo@1", arguments: { owner: "acme", repo: "missing" } },
    owner,
  );
  assert.deepEqual([missing.status, missing.successful, missing.body.message], [404, false, "Not Found"]);
  const before = github.requests.length;
  for (const dots of ["..", "."])
    await refused(
      t.s.call(
        "integration.execute",
        { connectionId, toolId: "github.get_repo@1", arguments: { owner: dots, repo: "website" } },
        owner,
      ),
      "validation_failed",
      "/input/arguments/owner",
    );
  assert.equal(github.requests.length, before);
  await t.s.call(
    "integration.execute",
    { connectionId, toolId: "github.get_repo@1", arguments: { owner: "a/../b", repo: "web site" } },
    owner,
  );
  assert.equal(github.requests.at(-1)!.url, "/repos/a%2F..%2Fb/web%20site");
  // A provider echoing the request does not hand the token back.
  const echo = await t.s.call(
    "integration.execute",
    { connectionId, toolId: "github.get_repo@1", arguments: { owner: "acme", repo: "echo" } },
    owner,
  );
  assert.equal(echo.body.headers.authorization, "Bearer [redacted]");
  assert.ok(!JSON.stringify(echo).includes(token));
  // A redirect to another origin is followed without the token (the kit's guard drops it).
  const elsewhere = await startGithubApi();
  try {
    github.redirectTo = `${elsewhere.url}/repos/acme/website`;
    const moved = await t.s.call(
      "integration.execute",
      { connectionId, toolId: "github.get_repo@1", arguments: { owner: "acme", repo: "moved" } },
      owner,
    );
    assert.equal(moved.status, 401); // the other origin got no credential
    assert.equal(elsewhere.requests.length, 1);
    assert.equal(elsewhere.requests[0]?.headers.authorization, undefined);
  } finally {
    await elsewhere.stop();
  }
  // Query parameters.
  const list = await t.s.call(
    "integration.app.execute",
    { tool: "GITHUB_LIST_REPO_ISSUES", arguments: { owner: "acme", repo: "website", state: "closed", per_page: 5 } },
    owner,
  );
  assert.equal(list.toolId, "github.list_repo_issues@1");
  assert.equal(github.requests.at(-1)!.url, "/repos/acme/website/issues?state=closed&per_page=5");
  // No answer within the time cap: 504; nothing listening: 502.
  await refused(
    t.s.call(
      "integration.execute",
      { connectionId, toolId: "github.get_repo@1", arguments: { owner: "a", repo: "slow" } },
      owner,
    ),
    "timeout",
    undefined,
    /GitHub did not answer github.get_repo@1 within 3000 ms/,
  );
  const slack = (await t.connect("slack", owner)).completed.connection.id;
  await refused(
    t.s.call(
      "integration.execute",
      { connectionId: slack, toolId: "slack.post_message@1", arguments: { channel: "C1", text: "hi" } },
      owner,
    ),
    "upstream_failed",
    undefined,
    /Slack did not answer slack.post_message@1: it could not be reached/,
  );

  // Shares: the grantee runs exactly the shared version; others are refused.
  await t.s.call(
    "connection.authorize",
    { action: "share", connectionId, principalId: agent.keyId, toolIds: ["github.list_repo_issues@1"] },
    owner,
  );
  const shared = await t.s.call(
    "integration.execute",
    { connectionId, toolId: "github.list_repo_issues@1", arguments: { owner: "acme", repo: "website" } },
    agent,
  );
  assert.equal(shared.access, "shared");
  assert.equal(shared.status, 200);
  await refused(
    t.s.call(
      "integration.execute",
      { connectionId, toolId: "github.create_issue@2", arguments: { owner: "acme", repo: "website", title: "x" } },
      agent,
    ),
    "forbidden",
    "/input/toolId",
  );
  await refused(
    t.s.call(
      "integration.execute",
      { connectionId, toolId: "github.get_repo@1", arguments: { owner: "a", repo: "b" } },
      stranger,
    ),
    "forbidden",
    "/input/connectionId",
  );

  // integration.search tools: ranked for the owner; only the share's tools for the grantee.
  const found = await t.s.call("integration.search", { connectionId, query: "create an issue" }, owner);
  assert.equal(found.action, "tools");
  assert.equal(found.toolkit, "github");
  assert.equal(found.tools[0].id, "github.create_issue@2");
  // 1 by words; blended with the sentence model's cosine when it answered within its budget (src/tool-meaning.ts).
  assert.ok(found.tools[0].score > 0.5, String(found.tools[0].score));
  assert.ok(found.tools.every((x: any, i: number) => i === 0 || x.score <= found.tools[i - 1].score));
  const all = await t.s.call("integration.search", { connectionId }, owner);
  assert.deepEqual(
    all.tools.map((x: any) => [x.id, x.score]),
    [
      ["github.create_issue@2", null],
      ["github.get_repo@1", null],
      ["github.list_repo_issues@1", null],
    ],
  );
  assert.deepEqual((await t.s.call("integration.search", { connectionId, query: "refund payments" }, owner)).tools, []);
  const granted = await t.s.call("integration.search", { action: "tools", connectionId }, agent);
  assert.deepEqual(
    granted.tools.map((x: any) => x.id),
    ["github.list_repo_issues@1"],
  );
  await refused(t.s.call("integration.search", { connectionId }, stranger), "forbidden", "/input/connectionId");
  await refused(t.s.call("integration.search", { connectionId }, otherTenant), "not_found", "/input/connectionId");

  // Refresh on use: past the refresh point the execution refreshes first and sends the new token.
  const refreshes = t.auth.grants.refresh_token ?? 0;
  t.advanceClock(3_600_000);
  github.token = null; // accept nothing until we know the new token
  const stale = await t.s.call(
    "integration.execute",
    { connectionId, toolId: "github.get_repo@1", arguments: { owner: "acme", repo: "website" } },
    owner,
  );
  assert.equal(stale.status, 401); // the stand-in accepted no token: but which one was sent?
  const fresh = await tokenOf(owner.tenant, connectionId);
  assert.notEqual(fresh, token);
  assert.equal(t.auth.grants.refresh_token, refreshes + 1);
  assert.equal(github.requests.at(-1)!.headers.authorization, `Bearer ${fresh}`);

  // A revoked connection runs nothing.
  await t.s.call("connection.authorize", { action: "revoke", connectionId }, owner);
  await refused(
    t.s.call(
      "integration.execute",
      { connectionId, toolId: "github.get_repo@1", arguments: { owner: "a", repo: "b" } },
      owner,
    ),
    "conflict",
    "/input/connectionId",
    /is revoked/,
  );
});

test("integration.app.connect for an OAuth toolkit: a new pending app account per call, completed by consent", async () => {
  const caller = { tenant: "apps-co", keyId: "key_apps" };
  const started = await t.s.call("integration.app.connect", { toolkit: "github", label: "Engineering" }, caller);
  assert.equal(started.connection.status, "pending");
  assert.equal(started.connection.kind, "app");
  assert.equal(started.connection.label, "Engineering");
  assert.match(started.authorizationUrl, /code_challenge_method=S256/);
  const redirect = await t.auth.consent(started.authorizationUrl);
  const done = await t.s.call(
    "connection.authorize",
    { action: "complete", connectionId: started.connection.id, state: started.state, sessionUri: redirect },
    caller,
  );
  assert.equal(done.connection.status, "connected");
  assert.equal(done.connection.kind, "app");
  github.token = await tokenOf(caller.tenant, started.connection.id);
  const run = await t.s.call(
    "integration.app.execute",
    { tool: "GITHUB_GET_REPO", arguments: { owner: "acme", repo: "website" } },
    caller,
  );
  assert.equal(run.status, 200);
  assert.equal(run.connectionId, started.connection.id);
  // A second account of the same toolkit is another connection.
  const second = await t.s.call("integration.app.connect", { toolkit: "github", label: "Ops" }, caller);
  assert.notEqual(second.connection.id, started.connection.id);
  await refused(
    t.s.call("integration.app.connect", { toolkit: "github", credentials: { token: "x" } }, caller),
    "validation_failed",
    "/input/credentials",
  );
  await refused(t.s.call("integration.app.connect", { toolkit: "gitlab" }, caller), "not_found", "/input/toolkit");
  await refused(
    t.s.call("integration.app.execute", { tool: "GITLAB_CREATE_ISSUE", arguments: {} }, caller),
    "not_found",
    "/input/tool",
  );
  await refused(
    t.s.call("integration.app.execute", { tool: "STRIPE_LIST_CHARGES", arguments: {} }, caller),
    "not_found",
    "/input/connectionId",
    /no connected stripe account/,
  );
});
