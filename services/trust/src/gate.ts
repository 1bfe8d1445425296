/**
 * @module trust/gate
 * The PermitGate gRPC service (proto/gantry/trust/v1/trust.proto) the gateway calls for every ability
 * call that carries `context.runId`: Batch, which takes the permits of calls about to run and records
 * the receipts of calls that ran (the items of the gateway's concurrent calls together, one RPC per
 * batch), and GetJwks for the public keys route.
 * Each item runs in its own tenant's scope (`withTenant`), and queries also match the tenant
 * exactly, so a parent tenant never uses a sub-tenant's run.
 */
import { GantryError, type grpc, lookupService, toGrpcError, translateDbError, withTenant } from "@gantry/kit";
import type {
  ConsumedPermitInit,
  ConsumePermitRequest,
  GateBatchRequest,
  RecordedReceiptInit,
  RecordReceiptRequest,
} from "@gantry/kit/generated/grpc.ts";
import { TENANT_PATTERN } from "@gantry/proto/catalogue/schema.ts";
import { TRUST_PROTO } from "@gantry/proto/paths";
import type { Context } from "./context.ts";
import { consumePermits } from "./permits.ts";
import { recordReceipt } from "./receipts.ts";
import { jwks } from "./signing.ts";
import { logResource } from "./tiles.ts";

const TENANT_RE = new RegExp(TENANT_PATTERN);
const HASH_RE = /^[0-9a-f]{64}$/;

function checkTenant(tenant: string): void {
  if (!tenant || tenant.length > 128 || !TENANT_RE.test(tenant))
    throw new GantryError("invalid_request", "tenant must be a tenant id (e.g. acme, acme/shop1)");
}

function checkHash(value: string, name: string): void {
  if (!HASH_RE.test(value)) throw new GantryError("invalid_request", `${name} must be a SHA-256 hex digest`);
}

/**
 * Items (permits and receipts together) one Batch call may carry. The gateway sends
 * at most 64 (its RpcBatcher's batch); a bound keeps one call's statements and its answer's size in
 * proportion.
 */
const MAX_ITEMS = 64;

function checkItems(items: readonly unknown[], what: string): void {
  if (items.length > MAX_ITEMS)
    throw new GantryError(
      "invalid_request",
      `One call carries at most ${MAX_ITEMS} ${what}; this one has ${items.length}.`,
      {
        reason: `Send the ${what} in calls of at most ${MAX_ITEMS}.`,
      },
    );
}

/** A thrown value as the error-table error an item's result carries. */
function itemError(ctx: Context, thrown: unknown, fields: Record<string, string>): GantryError {
  const err = translateDbError(thrown) ?? thrown;
  const gerr = err instanceof GantryError ? err : new GantryError("internal", "internal error", { cause: err });
  if (gerr.httpStatus >= 500) ctx.log.error({ ...fields, err: String(gerr.cause ?? err) }, "item of a batch failed");
  return gerr;
}

/**
 * The permits of a Batch call: one statement per tenant in the call (in that tenant's
 * scope), and one result per permit, in order.
 */
async function consumeAll(ctx: Context, reqs: readonly ConsumePermitRequest[]): Promise<ConsumedPermitInit[]> {
  const results: ConsumedPermitInit[] = new Array(reqs.length);
  const byTenant = new Map<string, number[]>();
  for (const [i, req] of reqs.entries()) {
    try {
      checkTenant(req.tenant);
      checkHash(req.input_hash, "input_hash");
      const indexes = byTenant.get(req.tenant);
      if (indexes) indexes.push(i);
      else byTenant.set(req.tenant, [i]);
    } catch (thrown) {
      results[i] = { run_id: req.run_id, error_json: JSON.stringify(itemError(ctx, thrown, {}).toJSON()) };
    }
  }
  await Promise.all(
    [...byTenant].map(async ([tenant, indexes]) => {
      let outcomes: Awaited<ReturnType<typeof consumePermits>>;
      try {
        outcomes = await withTenant(tenant, () =>
          consumePermits(
            ctx,
            tenant,
            indexes.map((i) => reqs[i]!),
          ),
        );
      } catch (thrown) {
        const gerr = itemError(ctx, thrown, { tenant });
        outcomes = indexes.map(() => gerr);
      }
      for (const [j, i] of indexes.entries()) {
        const outcome = outcomes[j]!;
        results[i] =
          outcome instanceof GantryError
            ? { run_id: reqs[i]!.run_id, error_json: JSON.stringify(outcome.toJSON()) }
            : { run_id: outcome.runId, permit_id: outcome.permitId };
      }
    }),
  );
  return results;
}

function unaryHandler<Req, Res>(ctx: Context, name: string, fn: (req: Req) => Promise<Res>) {
  return (call: grpc.ServerUnaryCall<Req, Res>, callback: grpc.sendUnaryData<Res>) => {
    fn(call.request).then(
      (res) => callback(null, res),
      (thrown) => {
        const err = translateDbError(thrown) ?? thrown;
        const gerr = err instanceof GantryError ? err : null;
        if (!gerr || gerr.httpStatus >= 500) ctx.log.error({ err: String(gerr?.cause ?? err) }, `${name} failed`);
        callback(toGrpcError(err) as grpc.ServiceError);
      },
    );
  };
}

/** Signs and appends one receipt of a Batch call; its failure becomes its own result. */
async function recordOne(ctx: Context, req: RecordReceiptRequest): Promise<RecordedReceiptInit> {
  try {
    checkTenant(req.tenant);
    checkHash(req.input_hash, "input_hash");
    if (req.result_hash) checkHash(req.result_hash, "result_hash");
    if (!req.request_id || !req.run_id || !req.ability)
      throw new GantryError("invalid_request", "request_id, run_id and ability are required");
    const receipt = await withTenant(req.tenant, () =>
      recordReceipt(ctx, {
        tenant: req.tenant,
        requestId: req.request_id,
        runId: req.run_id,
        permitId: req.permit_id || null,
        ability: req.ability,
        inputHash: req.input_hash,
        resultHash: req.result_hash || null,
        status: req.status,
        at: new Date(req.at_ms || ctx.now()),
      }),
    );
    return { request_id: receipt.requestId, log_index: receipt.logIndex };
  } catch (thrown) {
    const gerr = itemError(ctx, thrown, { requestId: req.request_id });
    return { request_id: req.request_id, error_code: gerr.code, error_message: gerr.message };
  }
}

export function permitGateService(ctx: Context) {
  const Service = lookupService(TRUST_PROTO, "gantry.trust.v1.PermitGate");
  const impl: grpc.UntypedServiceImplementation = {
    Batch: unaryHandler(ctx, "Batch", async (req: GateBatchRequest) => {
      checkItems([...req.permits, ...req.receipts], "permits and receipts");
      // Permits and receipts are worked on side by side, neither kind queued behind the other. The
      // receipts go together, so one tenant's go in one append batch (log-append.ts); each item
      // settles alone, so a refused one does not fail the others.
      const [permits, receipts] = await Promise.all([
        consumeAll(ctx, req.permits),
        Promise.all(req.receipts.map((r) => recordOne(ctx, r))),
      ]);
      return { permits, receipts };
    }),
    GetJwks: unaryHandler(ctx, "GetJwks", async () => ({ jwks_json: JSON.stringify(jwks(ctx.keys.publicKeys)) })),
    GetLogResource: unaryHandler(ctx, "GetLogResource", async (req: { log_id: string; path: string }) => {
      const r = await logResource(ctx, req.log_id, req.path);
      return { body: r.body, content_type: r.contentType, immutable: r.immutable };
    }),
  };
  return { service: Service.service, impl };
}
