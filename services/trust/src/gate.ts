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
  GateBatchRequest,
  RecordedReceiptInit,
  RecordReceiptRequest,
} from "@gantry/kit/generated/grpc.ts";
import { TENANT_PATTERN } from "@gantry/proto/catalogue/schema.ts";
import { TRUST_PROTO } from "@gantry/proto/paths";
import type { Context } from "./context.ts";
import type { ReceiptRow } from "./log-append.ts";
import { consumePermits } from "./permits.ts";
import { receiptRow } from "./receipts.ts";
import { jwks } from "./signing.ts";
import { takeArgs } from "./take-permits.ts";
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

function checkItems(count: number): void {
  if (count > MAX_ITEMS)
    throw new GantryError(
      "invalid_request",
      `One call carries at most ${MAX_ITEMS} permits and receipts; this one has ${count}.`,
      {
        reason: `Send the permits and receipts in calls of at most ${MAX_ITEMS}.`,
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

/** A Batch call's items of one tenant: the indexes of its permits, and its receipts signed. */
interface TenantItems {
  permits: number[];
  receipts: { i: number; row: ReceiptRow }[];
}

/** A receipt of a Batch call checked and signed, as its log row; throws what is wrong with it. */
function receiptOf(ctx: Context, req: RecordReceiptRequest): ReceiptRow {
  checkTenant(req.tenant);
  checkHash(req.input_hash, "input_hash");
  if (req.result_hash) checkHash(req.result_hash, "result_hash");
  if (!req.request_id || !req.run_id || !req.ability)
    throw new GantryError("invalid_request", "request_id, run_id and ability are required");
  return receiptRow(ctx, {
    tenant: req.tenant,
    requestId: req.request_id,
    runId: req.run_id,
    permitId: req.permit_id || null,
    ability: req.ability,
    inputHash: req.input_hash,
    resultHash: req.result_hash || null,
    status: req.status,
    at: new Date(req.at_ms || ctx.now()),
  });
}

/**
 * One tenant's permits and receipts of a Batch call, in its scope. Both go in the tenant's next
 * batch of the appender (log-append.ts), so permits and receipts waiting together, of this call and
 * of others, are one statement: one round trip and one commit. Each item's result is set in `out`.
 */
async function tenantItems(
  ctx: Context,
  tenant: string,
  items: TenantItems,
  req: GateBatchRequest,
  out: { permits: ConsumedPermitInit[]; receipts: RecordedReceiptInit[] },
): Promise<void> {
  const permitReqs = items.permits.map((i) => req.permits[i]!);
  const rows = items.receipts.map((r) => r.row);
  // Both kinds go in the tenant's next batch (log-append.ts), one statement when both wait.
  const logIndexes = rows.map((row) => ctx.appender.append(row));
  const permits = permitReqs.length
    ? ctx.appender
        .take(tenant, takeArgs(permitReqs, ctx.now()))
        .then((done) => consumePermits(ctx, tenant, permitReqs, done))
    : Promise.resolve([]);
  await Promise.all([
    permits.then(
      (outcomes) => {
        for (const [j, i] of items.permits.entries()) {
          const outcome = outcomes[j]!;
          out.permits[i] =
            outcome instanceof GantryError
              ? { run_id: req.permits[i]!.run_id, error_json: JSON.stringify(outcome.toJSON()) }
              : { run_id: outcome.runId, permit_id: outcome.permitId };
        }
      },
      (thrown) => {
        const json = JSON.stringify(itemError(ctx, thrown, { tenant }).toJSON());
        for (const i of items.permits) out.permits[i] = { run_id: req.permits[i]!.run_id, error_json: json };
      },
    ),
    ...items.receipts.map(({ i, row }, j) =>
      logIndexes[j]!.then(
        (logIndex) => {
          out.receipts[i] = { request_id: row.requestId, log_index: logIndex };
        },
        (thrown) => {
          out.receipts[i] = receiptError(ctx, row.requestId, thrown);
        },
      ),
    ),
  ]);
}

/** A receipt's failure as its own result. */
function receiptError(ctx: Context, requestId: string, thrown: unknown): RecordedReceiptInit {
  const gerr = itemError(ctx, thrown, { requestId });
  return { request_id: requestId, error_code: gerr.code, error_message: gerr.message };
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

export function permitGateService(ctx: Context) {
  const Service = lookupService(TRUST_PROTO, "gantry.trust.v1.PermitGate");
  const impl: grpc.UntypedServiceImplementation = {
    Batch: unaryHandler(ctx, "Batch", async (req: GateBatchRequest) => {
      checkItems(req.permits.length + req.receipts.length);
      const permits: ConsumedPermitInit[] = new Array(req.permits.length);
      const receipts: RecordedReceiptInit[] = new Array(req.receipts.length);
      const byTenant = new Map<string, TenantItems>();
      const itemsOf = (tenant: string): TenantItems => {
        let items = byTenant.get(tenant);
        if (!items) {
          items = { permits: [], receipts: [] };
          byTenant.set(tenant, items);
        }
        return items;
      };
      for (const [i, p] of req.permits.entries()) {
        try {
          checkTenant(p.tenant);
          checkHash(p.input_hash, "input_hash");
          itemsOf(p.tenant).permits.push(i);
        } catch (thrown) {
          permits[i] = { run_id: p.run_id, error_json: JSON.stringify(itemError(ctx, thrown, {}).toJSON()) };
        }
      }
      for (const [i, r] of req.receipts.entries()) {
        try {
          const row = receiptOf(ctx, r);
          itemsOf(r.tenant).receipts.push({ i, row });
        } catch (thrown) {
          receipts[i] = receiptError(ctx, r.request_id, thrown);
        }
      }
      // Each tenant's items side by side; each item settles alone, so a refused one fails no other.
      await Promise.all(
        [...byTenant].map(([tenant, items]) =>
          withTenant(tenant, () => tenantItems(ctx, tenant, items, req, { permits, receipts })),
        ),
      );
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
