/**
 * @module connections/execute
 * Running one tool version against its provider's API (integration.execute, integration.app.execute):
 *
 * 1. the arguments are validated against the pinned version's input schema (derived from its
 *    OpenAPI operation): 400 with one detail per field, under `/input/arguments/…`;
 * 2. the use is authorized (`authorizeUse`: the owner, or an active share listing exactly this tool
 *    version; 404 for another tenant's connection, 403 otherwise); the connection must be an account
 *    of the tool's toolkit and `connected` (409 naming its status otherwise);
 * 3. the credential is read (OAuth: refreshed first when due, src/refresh.ts; a token given at
 *    connect: as it was sealed; API key: the sealed fields) and put into the one header the toolkit
 *    names (`auth`);
 * 4. the request (path and query parameters where the operation puts them, the rest as a JSON or
 *    form body) goes through the kit's SSRF guard (time and size caps, redirects re-checked, a
 *    cross-origin redirect drops `authorization`);
 * 5. the provider's status and body are the result, whatever the status (a 4xx is the provider's
 *    answer, not our failure); only no answer at all is an error: 504 after the time cap, 502 when
 *    the API cannot be reached or the guard refuses its address.
 *
 * Idempotency: a non-GET call with `idempotencyKey` runs once per (tenant, ability, key) through the
 * kit's `idempotentCreate` (the provider is called inside its transaction, so a concurrent retry waits
 * and then replays the stored result; a failed call stores nothing and can be retried). Where the
 * provider has its own idempotency header (Stripe's `Idempotency-Key`), a hash of tenant, connection
 * and key goes with the request too, so even a retry after a lost response is deduplicated there.
 * GET tools are read-only: a key does not replay them.
 *
 * The credential is in the request header only: never in a log line, an error, the stored execution
 * or the result (a provider that echoes it back gets it redacted from the body).
 */
import { createHash } from "node:crypto";
import {
  type CallContext,
  GantryError,
  idempotentCreate,
  Lru,
  SsrfBlockedError,
  SsrfFetchError,
  type SsrfRequest,
} from "@gantry/kit";
import { foreignValidator } from "@gantry/kit/foreign-schema.ts";
import type { OutputOf } from "@gantry/proto/catalogue";
import { markUsed } from "./connections.ts";
import type { Context } from "./context.ts";
import { openTokens } from "./credentials.ts";
import { type Connection, SCHEMA } from "./db.ts";
import { newId } from "./ids.ts";
import { invalidField } from "./records.ts";
import { freshForUse } from "./refresh.ts";
import { authorizeUse } from "./shares.ts";
import { templateFields, type Tool, type Toolkit, toolkitOf } from "./toolkits.ts";

export type ExecutionOut = OutputOf<"integration.execute">;

export interface ExecuteRequest {
  ability: "integration.execute" | "integration.app.execute";
  /** The ability's input (idempotency compares it). */
  input: { idempotencyKey?: string };
  tool: Tool;
  connectionId: string;
  arguments: Record<string, unknown>;
}

/** Compiled argument checks by tool version; bounded, since toolkits may hold thousands of tools. */
const validators = new Lru<string, (value: unknown) => ReturnType<ReturnType<typeof foreignValidator>>>(2_000);

/** 400 with every problem of `args` against the tool version's input schema, each naming its field. */
export function validateArguments(tool: Tool, args: Record<string, unknown>): void {
  let check = validators.get(tool.id);
  if (!check) {
    check = foreignValidator(tool.inputSchema, "/input/arguments");
    validators.set(tool.id, check);
  }
  const details = check(args);
  if (details.length === 0) return;
  throw new GantryError(
    "validation_failed",
    `arguments do not match the input schema of ${tool.id}: ${details[0]?.message}${details.length > 1 ? ` (and ${details.length - 1} more)` : ""}. The schema is the tool's inputSchema (integration.app.tools).`,
    { details },
  );
}

/** The connection must be an account of the tool's toolkit, and connected. */
function checkUsable(connection: Connection, tool: Tool): void {
  if (connection.service !== tool.toolkit)
    throw invalidField(
      "/input/toolId",
      `is a ${tool.toolkit} tool, but connection ${connection.id} is an account of ${connection.service}: run it through a ${tool.toolkit} connection`,
      "toolkit_mismatch",
    );
  requireConnected(connection);
}

/** 409 naming the connection's status and the fix, unless it is connected. */
function requireConnected(connection: Connection): void {
  if (connection.status === "connected") return;
  const fix =
    connection.status === "pending"
      ? "complete its consent first (connection.authorize complete)"
      : connection.status === "needs_reauth"
        ? "the provider refused its token; give consent again (connection.authorize start)"
        : "it was revoked; connect the account again";
  throw new GantryError("conflict", `Connection ${connection.id} is ${connection.status}: ${fix}.`, {
    details: [
      {
        path: "/input/connectionId",
        message: `/input/connectionId is ${connection.status}`,
        code: "connection_status",
      },
    ],
  });
}

/** The credential fields the toolkit's `auth` template may name: `access_token`, or the API key's fields. */
async function credentialOf(ctx: Context, call: CallContext, row: Connection): Promise<Record<string, string>> {
  const fresh = row.authScheme === "oauth2" ? await freshForUse(ctx, row, call.requestId) : row;
  requireConnected(fresh); // a refresh refused with invalid_grant leaves it needs_reauth
  const tokens = openTokens(ctx, fresh);
  if (!tokens) throw new GantryError("internal", `Connection ${row.id} is connected but holds no credential.`);
  // A token given at connect (auth scheme `token`) is sealed and used exactly as an OAuth access token.
  if (fresh.authScheme === "oauth2" || fresh.authScheme === "token") return { access_token: tokens.access };
  return JSON.parse(tokens.access) as Record<string, string>;
}

/**
 * One path segment, percent-encoded. `.` and `..` are refused: URL parsers resolve them even encoded
 * (`%2E%2E`), and a path argument must never climb to another endpoint of the API.
 */
function pathSegment(value: unknown, name: string): string {
  const text = typeof value === "string" ? value : String(value);
  if (text === "" || text === "." || text === "..")
    throw invalidField(
      `/input/arguments/${name}`,
      `must not be "${text}": it is one segment of the request path`,
      "invalid_value",
    );
  return encodeURIComponent(text);
}

/** Form and query encoding of nested values the way Stripe reads them: `a[b]=…`, `a[0]=…`. */
function appendForm(params: URLSearchParams, key: string, value: unknown): void {
  if (value === undefined) return;
  if (value === null) params.append(key, "");
  else if (Array.isArray(value)) for (const [i, v] of value.entries()) appendForm(params, `${key}[${i}]`, v);
  else if (typeof value === "object")
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) appendForm(params, `${key}[${k}]`, v);
  else params.append(key, String(value));
}

interface BuiltRequest {
  url: string;
  request: SsrfRequest;
}

export function buildRequest(
  toolkit: Toolkit,
  tool: Tool,
  args: Record<string, unknown>,
  credential: Record<string, string>,
  providerIdempotencyKey: string | null,
): BuiltRequest {
  const located = new Map(tool.parameters.map((p) => [p.name, p.in]));
  const path = tool.path.replace(/\{([^{}]+)\}/g, (_, name: string) => pathSegment(args[name], name));
  const url = new URL(`${tool.baseUrl}${path}`);
  const bodyFields: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args)) {
    const at = located.get(name);
    if (at === "query") appendForm(url.searchParams, name, value);
    else if (at !== "path") bodyFields[name] = value;
  }
  const headers: Record<string, string> = { accept: "application/json", ...lower(toolkit.headers) };
  const auth = toolkit.auth;
  if (auth) {
    let value = auth.value;
    for (const field of templateFields(value)) {
      const secret = credential[field];
      if (!secret) throw new GantryError("internal", `The connection's credential has no ${field}.`);
      value = value.replaceAll(`{${field}}`, secret);
    }
    if (auth.encoding === "basic") value = `Basic ${Buffer.from(value, "utf8").toString("base64")}`;
    if (auth.in === "query") url.searchParams.set(auth.header, value);
    else headers[auth.header.toLowerCase()] = value;
  }
  if (providerIdempotencyKey && toolkit.idempotencyHeader)
    headers[toolkit.idempotencyHeader.toLowerCase()] = providerIdempotencyKey;
  let body: string | undefined;
  if (tool.bodyEncoding === "json") {
    headers["content-type"] = "application/json; charset=utf-8";
    body = JSON.stringify(bodyFields);
  } else if (tool.bodyEncoding === "form") {
    headers["content-type"] = "application/x-www-form-urlencoded";
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(bodyFields)) appendForm(form, k, v);
    body = form.toString();
  }
  // The guard drops `authorization` on a cross-origin redirect, but not a custom credential header:
  // a toolkit that uses one does not follow redirects at all (the 3xx is the answer).
  const redirect =
    !auth || (auth.in !== "query" && auth.header.toLowerCase() === "authorization") ? "follow" : "manual";
  return { url: url.href, request: { method: tool.method, headers, body, redirect } };
}

function lower(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

/** The provider's answer as the result carries it: JSON parsed when it is JSON and whole, else text. */
function responseBody(text: string, contentType: string | null, truncated: boolean): unknown {
  if (text === "") return null;
  if (!truncated && /[/+]json\b/i.test(contentType ?? "")) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

/** Calls the provider once; answers the result (any HTTP status) or throws 502/504 when there is no answer. */
interface ProviderCall {
  toolkit: Toolkit;
  tool: Tool;
  connection: Connection;
  access: ExecutionOut["access"];
  args: Record<string, unknown>;
  credential: Record<string, string>;
  providerIdempotencyKey: string | null;
  executionId: string;
}

async function callProvider(ctx: Context, call: CallContext, p: ProviderCall): Promise<ExecutionOut> {
  const { toolkit, tool, connection, access, args, credential, providerIdempotencyKey, executionId } = p;
  const built = buildRequest(toolkit, tool, args, credential, providerIdempotencyKey);
  const executed = new Date(ctx.now()).toISOString();
  const name = toolkit.out.name;
  let res: Awaited<ReturnType<Context["guard"]["fetch"]>>;
  try {
    res = await ctx.guard.fetch(built.url, built.request);
  } catch (err) {
    const log = { tenant: call.tenant, connectionId: connection.id, toolId: tool.id, requestId: call.requestId };
    if (err instanceof SsrfFetchError && err.code === "ETIMEDOUT") {
      ctx.log.warn({ ...log, stage: err.stage }, "tool execution timed out");
      throw new GantryError("timeout", `${name} did not answer ${tool.id} within ${ctx.guard.timeoutMs} ms.`, {
        reason: "The provider may still have acted; retry with the same idempotencyKey to avoid doing it twice.",
      });
    }
    const why = err instanceof SsrfBlockedError ? `its address was refused (${err.rule})` : "it could not be reached";
    ctx.log.warn({ ...log, err: err instanceof Error ? err.message : String(err) }, "tool execution failed");
    throw new GantryError("upstream_failed", `${name} did not answer ${tool.id}: ${why}.`);
  }
  // A provider that echoes the request (debug endpoints, errors quoting the header) must not hand the credential back.
  let text = res.text();
  for (const secret of Object.values(credential)) if (secret.length >= 8) text = text.split(secret).join("[redacted]");
  const contentType = res.headers.get("content-type");
  const out: ExecutionOut = {
    id: executionId,
    toolId: tool.id,
    connectionId: connection.id,
    access,
    status: res.status,
    successful: res.status >= 200 && res.status < 300,
    contentType,
    body: responseBody(text, contentType, res.truncated),
    truncated: res.truncated,
    durationMs: res.elapsedMs,
    requestId: call.requestId,
    executed,
  };
  ctx.log.info(
    {
      tenant: call.tenant,
      connectionId: connection.id,
      toolId: tool.id,
      access,
      status: res.status,
      durationMs: res.elapsedMs,
      requestId: call.requestId,
    },
    "tool executed",
  );
  return out;
}

/** Validates, authorizes, injects the credential, calls the provider (once per idempotencyKey) and records it. */
export async function executeTool(ctx: Context, call: CallContext, req: ExecuteRequest): Promise<ExecutionOut> {
  const { tool } = req;
  validateArguments(tool, req.arguments);
  const grant = await authorizeUse(ctx, {
    tenant: call.tenant,
    principalId: call.keyId,
    connectionId: req.connectionId,
    toolId: tool.id,
  });
  const connection = grant.connection;
  checkUsable(connection, tool);
  const toolkit = toolkitOf(ctx.toolkits, tool.toolkit, "/input/toolId");
  const key = req.input.idempotencyKey;
  const idempotent = Boolean(key) && tool.method !== "GET";
  const record = (executionId: string, out: ExecutionOut, keep: boolean) => ({
    id: executionId,
    tenant: call.tenant,
    connectionId: connection.id,
    toolId: tool.id,
    principalId: call.keyId,
    access: grant.access,
    shareId: grant.share?.id ?? null,
    status: out.status,
    durationMs: out.durationMs,
    requestId: call.requestId,
    executedAt: new Date(out.executed),
    ...(keep ? { result: out as object } : {}),
  });

  const provider = { toolkit, tool, connection, access: grant.access, args: req.arguments };
  if (!idempotent) {
    const credential = await credentialOf(ctx, call, connection);
    const executionId = newId("execution", ctx.now());
    const out = await callProvider(ctx, call, { ...provider, credential, providerIdempotencyKey: null, executionId });
    await ctx.db.toolExecution.create({ data: record(executionId, out, false) });
    await markUsed(ctx, connection);
    return out;
  }

  const providerKey = createHash("sha256")
    .update(`${call.tenant}\0${connection.id}\0${req.ability}\0${key}`)
    .digest("hex");
  const executionId = newId("execution", ctx.now());
  // Read (and refreshed) before the idempotency transaction, which then holds only its own row.
  const credential = await credentialOf(ctx, call, connection);
  const { result, created } = await idempotentCreate({
    db: ctx.db,
    schema: SCHEMA,
    call,
    ability: req.ability,
    input: req.input,
    recordId: executionId,
    create: async (tx) => {
      const out = await callProvider(ctx, call, {
        ...provider,
        credential,
        providerIdempotencyKey: providerKey,
        executionId,
      });
      await tx.toolExecution.create({ data: record(executionId, out, true) });
      return out;
    },
    replay: async (id) => {
      const row = await ctx.db.toolExecution.findFirst({ where: { id, tenant: call.tenant } });
      if (!row?.result)
        throw new GantryError("internal", `Execution ${id} of this idempotencyKey has no stored result.`);
      return row.result as unknown as ExecutionOut;
    },
    // The provider is called inside the transaction: its time cap plus the writes.
    txOptions: { timeout: ctx.guard.timeoutMs + 10_000, maxWait: 10_000 },
  });
  if (created) await markUsed(ctx, connection);
  return result;
}

/**
 * Checks API-key credentials with the provider before they are stored (integration.app.connect):
 * the toolkit's `verify` tool (a GET) must answer 2xx. 401/403 is 400 naming `/input/credentials`;
 * another status or no answer is 502/504. Toolkits without `verify` are not checked.
 */
export async function verifyCredential(
  ctx: Context,
  toolkit: Toolkit,
  credential: Record<string, string>,
): Promise<void> {
  if (!toolkit.verify) return;
  const { tool, arguments: args } = toolkit.verify;
  const built = buildRequest(toolkit, tool, args, credential, null);
  const name = toolkit.out.name;
  let status: number;
  try {
    status = (await ctx.guard.fetch(built.url, { ...built.request, maxBytes: 64 * 1024 })).status;
  } catch (err) {
    if (err instanceof SsrfFetchError && err.code === "ETIMEDOUT")
      throw new GantryError("timeout", `${name} did not answer the credential check within ${ctx.guard.timeoutMs} ms.`);
    throw new GantryError("upstream_failed", `${name} could not be reached to check the credentials.`);
  }
  if (status === 401 || status === 403)
    throw invalidField(
      "/input/credentials",
      `were refused by ${name} (HTTP ${status}): check the key and its permissions`,
      "provider_refused",
    );
  if (status < 200 || status >= 300)
    throw new GantryError(
      "upstream_failed",
      `${name} answered HTTP ${status} to the credential check; try again later.`,
    );
}
