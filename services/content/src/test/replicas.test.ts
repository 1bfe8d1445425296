/**
 * Two content replicas (two processes on one database, as Kubernetes runs them) share every file
 * through the kit's blob store: a document generated through one downloads through the other, a
 * help centre deployed through one is served and listed by the other, and a replica that restarts
 * still serves both. Run with the default Postgres driver and, when versitygw is built
 * (S3_SERVER_BIN), with the S3 driver against a real S3-compatible server.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { S3_SERVER_SKIP, type S3TestServer, startS3Server } from "@gantry/kit/blob/s3-test-server.ts";
import { type CallContext, ingressClient, loadCallKeys, makeClient, toGrpcContext } from "@gantry/kit";
import { ABILITY_PROTO } from "@gantry/proto/paths";
import { HARNESS_BASE_URL } from "@gantry/infra/testing/service.ts";
import { type Stack, startStack } from "@gantry/infra/runner/stack.ts";

let requests = 0;

let stackEnv: Record<string, string> = {};
/** Signs as the gateway does, with the stack's call key (kit/call-auth). */
const asGateway = () => loadCallKeys("gateway", stackEnv).signer("content");

/** Executes an ability on one replica (by its gRPC address), as the gateway would. */
async function callOn(addr: string, ability: string, input: unknown, caller: Partial<CallContext> = {}): Promise<any> {
  const client = makeClient(ABILITY_PROTO, "gantry.ability.v1.AbilityService", addr, { signer: asGateway() });
  const call: CallContext = {
    requestId: `req_replicas${++requests}`,
    tenant: "replica-co",
    keyTenant: "replica-co",
    keyId: "key_replicas",
    scopes: ["*"],
    collections: [],
    products: ["handbook"],
    admin: false,
    subTenants: false,
    baseUrl: HARNESS_BASE_URL,
    ...caller,
  };
  try {
    const res = await client.unary("Execute", {
      ability,
      input_json: JSON.stringify(input),
      context: toGrpcContext(call),
    });
    return JSON.parse(res.result_json);
  } finally {
    client.close();
  }
}

/** GETs a link the service handed out from one replica's files ingress, as the gateway would. */
async function fetchOn(addr: string, url: string): Promise<{ status: number; body: Buffer }> {
  const u = new URL(url);
  const files = ingressClient(addr, asGateway());
  try {
    const res = await files.handle(
      {
        route: "files",
        method: "GET",
        path: u.pathname.slice("/v1/files/content".length),
        query: u.search.replace(/^\?/, ""),
        headers: {},
        body: Buffer.alloc(0),
        request_id: `req_replicas${++requests}`,
        remote_addr: "127.0.0.1",
      },
      30_000,
    );
    return { status: res.status, body: Buffer.from(res.body) };
  } finally {
    files.close();
  }
}

function replicaSuite(driver: string, skip: string | false, blobEnv: () => Promise<Record<string, string>>) {
  describe(`two content replicas (${driver} blob store)`, { skip }, () => {
    let stack: Stack;
    let dir: string;
    let s3: S3TestServer | undefined;
    let a: string;
    let b: string;

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), "gantry-content-replicas-"));
      const env = await blobEnv();
      stack = await startStack({
        port: 0,
        dataDir: dir,
        quiet: true,
        services: ["content"],
        gateways: 0,
        replicas: { content: 2 },
        env: { CONNECTIONS_ADDR: "127.0.0.1:9", NODE_ENV: "test", LOG_LEVEL: "warn", ...env },
      });
      stackEnv = stack.env;
      [a, b] = stack.env.CONTENT_ADDR.split(",");
      assert.ok(a && b && a !== b, `two replica addresses: ${stack.env.CONTENT_ADDR}`);
    });
    after(async () => {
      await stack?.stop();
      await s3?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    let doc: any;
    let guide: any;

    test("a document generated through one replica downloads through the other", async () => {
      doc = await callOn(a, "document.generate", {
        title: "Shared between replicas",
        markdown: "# Hello\n\nGenerated on one replica, served by another.",
        format: "html",
      });
      const got = await fetchOn(b, doc.url);
      assert.equal(got.status, 200);
      assert.equal(createHash("sha256").update(got.body).digest("hex"), doc.sha256);
      assert.match(got.body.toString(), /served by another/);
    });

    test("a help centre deployed through one replica is served and listed by the other", async () => {
      guide = await callOn(a, "guide.publish", {
        product: "handbook",
        slug: "first-steps",
        title: "First steps",
        area: "Start",
        markdown: "Open the app.",
      });
      const page = await fetchOn(b, guide.url);
      assert.equal(page.status, 200);
      assert.match(page.body.toString(), /<h1>First steps<\/h1>/);
      assert.equal((await fetchOn(b, guide.helpCenterUrl)).status, 200);
      const db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
      await db.connect();
      const { rows } = await db.query(`SELECT count(*)::int AS n FROM content.blobs WHERE tenant = 'replica-co'`);
      await db.end();
      if (driver === "postgres") assert.ok(rows[0].n >= 4, "the files are rows of content.blobs");
      else assert.equal(rows[0].n, 0, "with BLOB_STORE=s3 nothing is in content.blobs");
      const listed = await callOn(b, "guide.list", { product: "handbook" });
      assert.deepEqual(
        listed.guides.map((g: any) => g.url),
        [guide.url],
      );
      const other = await callOn(
        b,
        "guide.list",
        { product: "handbook" },
        { tenant: "other-co", keyTenant: "other-co" },
      );
      assert.deepEqual(other.guides, [], "another tenant does not see it");
    });

    test("a replica that restarts (and one that crashes) still serves both", async () => {
      await stack.stopService("content");
      await stack.startService("content");
      await stack.waitHealthy("content");
      assert.equal((await fetchOn(a, doc.url)).status, 200, "the restarted replica serves the document");
      assert.equal((await fetchOn(a, guide.url)).status, 200, "and the help centre");
      const pid = stack.pid("content-2");
      assert.ok(stack.kill("content-2"));
      for (let i = 0; i < 600 && (stack.pid("content-2") === pid || !stack.pid("content-2")); i++)
        await new Promise((r) => setTimeout(r, 100));
      await stack.waitHealthy("content-2");
      assert.equal((await fetchOn(b, doc.url)).status, 200, "the replica restarted after a crash serves it");
    });
  });
}

replicaSuite("postgres", false, async () => ({}));

let server: S3TestServer | undefined;
replicaSuite("s3", S3_SERVER_SKIP, async () => {
  server = await startS3Server("gantry-replicas");
  return server.env;
});
after(async () => server?.stop());
