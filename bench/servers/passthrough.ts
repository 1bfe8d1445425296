/**
 * @module bench/servers/passthrough
 * The passthrough floor: Gantry's own HTTP → gRPC hop and nothing else. Same Express 5 app settings
 * as gateway/src/app.ts, the gateway's request-id middleware, JSON body reader, `Dispatcher` and
 * response writer, but no authentication, scope check, rate limit, validation, audit or metrics.
 * Every call runs with one fixed call context (the bench key's), passed in by the bench.
 *
 * Bench-only: never deploy this, it skips every policy on purpose.
 *
 * Env: PORT (default 0), every `<AREA>_ADDR` (as the stack sets them), BENCH_CALL_CONTEXT (JSON of
 * a `CallContext` without `requestId`). Prints `READY <port>`.
 */
import express, { type Request, type Response } from "express";
import { abilityById } from "@gantry/proto/catalogue";
import { AREA_SERVICES, GantryError, type AreaService, type CallContext } from "@gantry/kit";
import { Dispatcher } from "../../gateway/src/dispatch.ts";
import { requestId } from "../../gateway/src/pipeline/request-id.ts";
import { readJsonBody } from "../../gateway/src/pipeline/body.ts";
import { sendError, sendResult } from "../../gateway/src/respond.ts";

const addrs = Object.fromEntries(
  AREA_SERVICES.map((s) => [s.name, process.env[s.addrEnv] ?? `127.0.0.1:${s.defaultPort}`]),
) as Record<AreaService, string>;
const context = JSON.parse(process.env.BENCH_CALL_CONTEXT ?? "{}") as Omit<CallContext, "requestId">;
const dispatcher = new Dispatcher(addrs, 30_000);

const app = express();
app.disable("x-powered-by");
app.disable("etag");
app.set("trust proxy", true);
app.use(requestId);

app.post("/v1/abilities/:id", async (req: Request, res: Response) => {
  const id = String(req.params.id);
  try {
    const ability = abilityById.get(id);
    if (!ability || ability.service === "gateway")
      throw new GantryError("unknown_ability", `No area service owns ${JSON.stringify(id)}.`);
    const { value } = await readJsonBody(req, 1 << 20);
    const input = (value as { input?: unknown } | null)?.input ?? {};
    const { resultJson } = await dispatcher.execute(ability.service, id, JSON.stringify(input), {
      ...context,
      requestId: res.locals.requestId,
    });
    sendResult(res, id, resultJson, performance.now() - res.locals.started);
  } catch (err) {
    sendError(res, err instanceof GantryError ? err : new GantryError("internal", "internal error"), id);
  }
});

const server = app.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  const addr = server.address();
  process.stdout.write(`READY ${typeof addr === "object" && addr ? addr.port : 0}\n`);
});
server.keepAliveTimeout = 65_000;
process.once("SIGTERM", () => {
  dispatcher.close();
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
