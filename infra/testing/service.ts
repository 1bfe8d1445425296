/**
 * A one-service harness for handler tests: real Postgres and NATS (started by the local runner), the
 * service itself run in this process by the kit's `runService` (so a test sees the same migrations,
 * row-level security, validation and error translation as production), and `call()` over real gRPC.
 * No gateway and no other services: seconds faster than a full stack. End-to-end paths (auth, rate
 * limits, the envelope) keep using `startTestStack`.
 *
 * @example
 * const s = await startService("workspace");
 * const contact = await s.call("contact.create", { name: "Ada" }, { tenant: "acme" });
 * await assert.rejects(s.call("contact.get", { id: contact.id }, { tenant: "beta" }), { code: "not_found" });
 * await s.stop();
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import pg from "pg";
import {
  type AreaService,
  type CallContext,
  type Caller,
  type CallSigner,
  checkResult,
  GantryError,
  ingressClient,
  loadCallKeys,
  makeClient,
  repoRoot,
  runService,
  type ServiceDefinition,
  toGrpcContext,
} from "@gantry/kit";
import type { AbilityId, InputOf } from "@gantry/proto/catalogue";
import { ABILITY_PROTO } from "@gantry/proto/paths";
import { startStack } from "../runner/stack.ts";

export interface ServiceHarness<Ctx> {
  /** The context the service's `init` returned (its clients, config, clock). */
  ctx: Ctx;
  /** A superuser pool on the same database (bypasses row-level security: for setup and inspection). */
  db: pg.Pool;
  /** The stack's environment as the service got it: DATABASE_URL is the service's own login. */
  env: Record<string, string>;
  /** The service's gRPC port on 127.0.0.1 (for its typed internal RPCs). */
  port: number;
  /** Executes an ability as the given caller (tenant `acme`, all scopes, unless overridden); throws GantryError. */
  call: <Id extends AbilityId>(
    id: Id,
    input: InputOf<Id> | Record<string, unknown>,
    caller?: Partial<CallContext>,
  ) => Promise<any>;
  /**
   * GET a link the service handed out (`<baseUrl>/v1/files/<service>/…`) as the gateway would serve
   * it: through the service's HttpIngress (kit/src/ingress.ts). Answers a fetch `Response`.
   */
  fetchFile: (url: string | URL, method?: "GET" | "HEAD") => Promise<Response>;
  /**
   * Signs calls to this service as `caller` (default the gateway, as `call` does), from the stack's
   * GANTRY_CALL_KEY (kit/call-auth): for a test's own client of a typed internal RPC.
   */
  signer: (caller?: Caller) => CallSigner | undefined;
  stop: () => Promise<void>;
}

/** The gateway base URL harness calls carry (`CallContext.baseUrl`), so links a service builds are absolute. */
export const HARNESS_BASE_URL = "http://gantry.test";

let requests = 0;

/**
 * One call-authentication master for every harness of a test process (kit/call-auth), as one
 * deployment has: a test that starts two services (payments calling connections) needs no wiring.
 */
const HARNESS_CALL_KEY = randomBytes(32).toString("base64");

export async function startService<Ctx = unknown>(
  name: AreaService,
  env: Record<string, string> = {},
): Promise<ServiceHarness<Ctx>> {
  const dataDir = mkdtempSync(join(tmpdir(), `gantry-${name}-`));
  // The stack prepares the service's schema as its owner; the service gets only its own login, as
  // under `npm start` and in the chart, so a test sees production's privileges.
  const stack = await startStack({
    port: 0,
    dataDir,
    quiet: true,
    services: [],
    schemas: [name],
    gateways: 0,
    env: { GANTRY_CALL_KEY: HARNESS_CALL_KEY },
  });
  const ownEnv = { ...stack.env, DATABASE_URL: stack.databaseUrls[name] ?? stack.env.DATABASE_URL };
  const serviceEnv = {
    ...process.env,
    ...ownEnv,
    GRPC_PORT: "0",
    GRPC_HOST: "127.0.0.1",
    LOG_LEVEL: "warn",
    NODE_ENV: "test",
    ...env,
  };
  const mod = (await import(pathToFileURL(join(repoRoot(), "services", name, "src", "service.ts")).href)) as {
    default: ServiceDefinition<Ctx>;
  };
  let running: Awaited<ReturnType<typeof runService<Ctx, Record<never, never>>>>;
  try {
    running = await runService(mod.default, serviceEnv);
  } catch (err) {
    // A service that refuses to start must not leave its Postgres and NATS behind.
    await stack.stop();
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  // The harness stands where the gateway does: its calls carry the gateway's token.
  const signer = (caller: Caller = "gateway") => loadCallKeys(caller, serviceEnv).signer(name);
  const client = makeClient(ABILITY_PROTO, "gantry.ability.v1.AbilityService", `127.0.0.1:${running.port}`, {
    signer: signer(),
  });
  const db = new pg.Pool({ connectionString: stack.env.DATABASE_URL, max: 2 });
  db.on("error", () => {});
  return {
    ctx: running.ctx,
    db,
    env: ownEnv,
    port: running.port,
    call: async (id, input, caller = {}) => {
      const call: CallContext = {
        requestId: `req_harness${++requests}`,
        tenant: "acme",
        keyTenant: caller.tenant ?? "acme",
        keyId: "key_harness",
        scopes: ["*"],
        collections: [],
        products: [],
        admin: false,
        subTenants: false,
        baseUrl: HARNESS_BASE_URL,
        ...caller,
      };
      const res = await client.unary("Execute", {
        ability: id,
        input_json: JSON.stringify(input),
        context: toGrpcContext(call),
      });
      const result = JSON.parse(res.result_json);
      checkResult(id, result);
      return result;
    },
    fetchFile: async (url, method = "GET") => {
      const u = new URL(url);
      const prefix = `/v1/files/${name}`;
      if (u.origin !== HARNESS_BASE_URL || !u.pathname.startsWith(`${prefix}/`))
        throw new Error(`${url} is not a ${name} file link under ${HARNESS_BASE_URL}${prefix}/`);
      const files = ingressClient(`127.0.0.1:${running.port}`, signer());
      try {
        const res = await files.handle(
          {
            route: "files",
            method,
            path: u.pathname.slice(prefix.length),
            query: u.search.replace(/^\?/, ""),
            headers: {},
            body: Buffer.alloc(0),
            request_id: `req_harness${++requests}`,
            remote_addr: "127.0.0.1",
          },
          30_000,
        );
        return new Response(method === "HEAD" ? null : new Uint8Array(res.body), {
          status: res.status,
          headers: res.headers,
        });
      } catch (err) {
        if (err instanceof GantryError)
          return new Response(JSON.stringify({ error: err.message, code: err.code }), {
            status: err.httpStatus,
            headers: { "content-type": "application/json" },
          });
        throw err;
      } finally {
        files.close();
      }
    },
    signer,
    stop: async () => {
      client.close();
      await db.end().catch(() => {});
      await running.stop();
      await stack.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
