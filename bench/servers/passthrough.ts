/**
 * @module bench/servers/passthrough
 * The passthrough floor: Gantry's own HTTP → gRPC hop and nothing else. The same bare `node:http`
 * server the gateway answers `POST /v1/abilities/{id}` on (routes/abilities.ts), the gateway's
 * request ids, JSON body reader, `Dispatcher` and response writer, but no authentication, scope
 * check, rate limit, validation, audit or metrics.
 * Every call runs with one fixed call context (the bench key's), passed in by the bench.
 *
 * Bench-only: never deploy this, it skips every policy on purpose.
 *
 * Env: PORT (default 0), every `<AREA>_ADDR` (as the stack sets them), BENCH_CALL_CONTEXT (JSON of
 * a `CallContext` without `requestId`). Prints `READY <port>`.
 */
import { createServer } from "node:http";
import { abilityById } from "@gantry/proto/catalogue";
import { AREA_SERVICES, GantryError, loadCallKeys, type AreaService, type CallContext } from "@gantry/kit";
import { Dispatcher } from "../../gateway/src/dispatch.ts";
import { startCall } from "../../gateway/src/pipeline/request-id.ts";
import { readJsonBody } from "../../gateway/src/pipeline/body.ts";
import { resultEnvelopeJson } from "../../gateway/src/pipeline/outcome.ts";
import { sendError, sendOutcome } from "../../gateway/src/respond.ts";

const addrs = Object.fromEntries(
  AREA_SERVICES.map((s) => [s.name, process.env[s.addrEnv] ?? `127.0.0.1:${s.defaultPort}`]),
) as Record<AreaService, string>;
const context = JSON.parse(process.env.BENCH_CALL_CONTEXT ?? "{}") as Omit<CallContext, "requestId">;
// Signs as the gateway does (kit/call-auth): the stack's GANTRY_CALL_KEY is in this process's env.
const dispatcher = new Dispatcher(addrs, 30_000, false, loadCallKeys("gateway", process.env));

const ROUTE = /^\/v1\/abilities\/([a-z0-9_.-]+)$/;

const server = createServer(async (req, res) => {
  const { requestId, started } = startCall(res);
  const id = ROUTE.exec(req.url ?? "")?.[1] ?? "";
  try {
    const ability = abilityById.get(id);
    if (req.method !== "POST" || !ability || ability.service === "gateway")
      throw new GantryError("unknown_ability", `No area service owns ${JSON.stringify(id)}.`);
    const { value } = await readJsonBody(req, 1 << 20);
    const input = (value as { input?: unknown } | null)?.input ?? {};
    const { resultJson } = await dispatcher.execute(ability.service, id, JSON.stringify(input), {
      ...context,
      requestId,
    });
    const envelopeJson = resultEnvelopeJson(id, resultJson, performance.now() - started);
    sendOutcome(res, { ok: true, status: 200, ability: id, requestId, envelopeJson, headers: {} });
  } catch (err) {
    sendError(res, err instanceof GantryError ? err : new GantryError("internal", "internal error"), id);
  }
});
server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  const addr = server.address();
  process.stdout.write(`READY ${typeof addr === "object" && addr ? addr.port : 0}\n`);
});
server.keepAliveTimeout = 65_000;
process.once("SIGTERM", () => {
  dispatcher.close();
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
