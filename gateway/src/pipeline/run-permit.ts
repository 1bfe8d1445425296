/**
 * @module gateway/pipeline/run-permit
 * The trust-run permit step (issue 17), between validation and dispatch: a call carrying
 * `context.runId` runs only if the trust service consumes, atomically, the run's unused permit for
 * exactly this ability and input (SHA-256 of the RFC 8785 canonical JSON of the validated input,
 * defaults applied: what is hashed is exactly what runs). Unknown or another tenant's run → 404;
 * expired run, another key, a replay, another input, no permit for the ability → 403, each with its
 * own detail code (`run_expired`, `run_other_key`, `permit_used`, `permit_input_mismatch`,
 * `permit_missing`). After the call, whatever its outcome, the trust service records its signed
 * receipt ({@link recordRunReceipt}). Permits and receipts of concurrent calls go to trust in one
 * `PermitGate.Batch` RPC per batch (rpc-batch.ts).
 *
 * The trust service's own abilities are not permit-gated: they read `context.runId` themselves
 * (trust.publish attaches the answer to the run).
 *
 * `GANTRY_RUN_REQUIRED` lets a tenant require a run for chosen abilities (`payout.*`,
 * `message.send`): a call to one of them without `context.runId` is refused with 403
 * `run_required`. It applies to the tenant and its sub-tenants; checking it costs no RPC.
 */
import {
  type CallSigner,
  canonicalJson,
  GantryError,
  grpc,
  isErrorCode,
  makeClient,
  sha256Hex,
  type RpcClient,
  statusError,
} from "@gantry/kit";
import { TRUST_PROTO } from "@gantry/proto/paths";
import type { AbilityDef } from "@gantry/proto/catalogue/types.ts";
import type { Logger } from "@gantry/kit";
import type {
  ConsumedPermit as PermitResult,
  ConsumePermitRequestInit,
  RecordedReceipt,
  RecordReceiptRequestInit,
} from "@gantry/kit/generated/grpc.ts";
import { RpcBatcher } from "./rpc-batch.ts";

/** A permit the gate consumed for the call. */
export interface ConsumedPermit {
  runId: string;
  permitId: string;
  inputHash: string;
}

/** A call's item of a PermitGate.Batch: its permit to take or its receipt to record. */
type GateItem = { permit: ConsumePermitRequestInit } | { receipt: RecordReceiptRequestInit };
type GateResult = PermitResult | RecordedReceipt;

/** The gateway's client of the trust service's PermitGate. */
export class PermitGate {
  private readonly client: RpcClient<"gantry.trust.v1.PermitGate">;
  private readonly timeoutMs: number;
  private readonly batch: RpcBatcher<GateItem, GateResult>;
  /** Ability patterns (`payout.*`, `message.send`, `*`) requiring a run, by tenant (GANTRY_RUN_REQUIRED). */
  private readonly required: ReadonlyMap<string, readonly string[]>;

  constructor(
    addr: string,
    timeoutMs: number,
    required: ReadonlyMap<string, readonly string[]> = new Map(),
    signer?: CallSigner,
  ) {
    this.client = makeClient(TRUST_PROTO, "gantry.trust.v1.PermitGate", addr, { signer });
    this.timeoutMs = timeoutMs;
    // One queue for both kinds: whatever is waiting leaves together, so a batch of permits alone or
    // receipts alone leaves as soon as a lone one would, and neither kind waits for the other.
    this.batch = new RpcBatcher("PermitGate.Batch", async (items) => {
      const permits: ConsumePermitRequestInit[] = [];
      const receipts: RecordReceiptRequestInit[] = [];
      for (const item of items) {
        if ("permit" in item) permits.push(item.permit);
        else receipts.push(item.receipt);
      }
      const res = await this.client.unary("Batch", { permits, receipts }, { deadlineMs: this.timeoutMs });
      if (res.permits.length !== permits.length || res.receipts.length !== receipts.length)
        throw new Error(
          `trust answered ${res.permits.length}/${res.receipts.length} results for ${permits.length}/${receipts.length} permits/receipts`,
        );
      let p = 0;
      let r = 0;
      return items.map((item) => ("permit" in item ? res.permits[p++]! : res.receipts[r++]!));
    });
    this.required = required;
  }

  /**
   * Consumes the call's permit. The permits of concurrent calls go to trust in one Batch call
   * (rpc-batch.ts), taken by one statement per tenant; a permit trust refused rejects with trust's
   * error (its detail code says why), a failed call rejects each item in it.
   */
  async consume(req: ConsumePermitRequestInit): Promise<{ runId: string; permitId: string }> {
    const result = (await this.batch.add({ permit: req })) as PermitResult;
    if (result.error_json) throw statusError(grpc.status.UNKNOWN, "permit refused", Buffer.from(result.error_json));
    return { runId: result.run_id, permitId: result.permit_id };
  }

  /**
   * Records the receipt; resolves once it is signed and in its tenant's log. The receipts of
   * concurrent calls go to trust in one Batch call (rpc-batch.ts), beside the permits waiting then:
   * one RPC, one call-auth token and one append statement for many receipts. A receipt trust
   * refused rejects with trust's error; a failed call rejects each item in it.
   */
  async record(req: {
    tenant: string;
    requestId: string;
    permit: ConsumedPermit;
    ability: string;
    resultHash: string | undefined;
    status: number;
    atMs: number;
  }): Promise<void> {
    const result = (await this.batch.add({
      receipt: {
        tenant: req.tenant,
        request_id: req.requestId,
        run_id: req.permit.runId,
        permit_id: req.permit.permitId,
        ability: req.ability,
        input_hash: req.permit.inputHash,
        result_hash: req.resultHash ?? "",
        status: req.status,
        at_ms: req.atMs,
      },
    })) as RecordedReceipt;
    if (result.error_code)
      throw new GantryError(isErrorCode(result.error_code) ? result.error_code : "internal", result.error_message);
  }

  /** The JWKS of the receipt-signing keys, as JSON text. */
  async jwksJson(): Promise<string> {
    return (await this.client.unary("GetJwks", {}, { deadlineMs: this.timeoutMs })).jwks_json;
  }

  /** One public resource of a receipt log (checkpoint, tile, entries), by the log's public id. */
  async logResource(logId: string, path: string) {
    return this.client.unary("GetLogResource", { log_id: logId, path }, { deadlineMs: this.timeoutMs });
  }

  /** Whether the tenant (or a tenant it nests under) requires a run for this ability. */
  requiresRun(tenant: string, ability: string): boolean {
    if (this.required.size === 0) return false;
    const parts = tenant.split("/");
    for (let i = parts.length; i > 0; i--) {
      const patterns = this.required.get(parts.slice(0, i).join("/"));
      if (patterns?.some((p) => p === "*" || p === ability || (p.endsWith(".*") && ability.startsWith(p.slice(0, -1)))))
        return true;
    }
    return false;
  }

  close(): void {
    this.client.close();
  }
}

/** Parses GANTRY_RUN_REQUIRED: `{"<tenant>": ["payout.*", "message.send"]}`. */
export function parseRunRequired(text: string): Map<string, string[]> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error("GANTRY_RUN_REQUIRED is not JSON");
  }
  if (!value || typeof value !== "object" || Array.isArray(value))
    throw new Error('GANTRY_RUN_REQUIRED must be a JSON object {"<tenant>": ["<ability or area.*>", …]}');
  const out = new Map<string, string[]>();
  for (const [tenant, patterns] of Object.entries(value)) {
    if (
      !Array.isArray(patterns) ||
      !patterns.every((p) => typeof p === "string" && /^(\*|[a-z][a-z0-9_.]*(\.\*)?)$/.test(p))
    )
      throw new Error(`GANTRY_RUN_REQUIRED["${tenant}"] must be a list of ability ids or "area.*" patterns`);
    out.set(tenant, patterns);
  }
  return out;
}

/**
 * The permit step: consumes the call's permit when it carries a run (returns it), refuses a call
 * the tenant's policy requires a run for, and lets every other call through (undefined).
 */
export async function checkRunPermit(
  gate: PermitGate,
  call: { tenant: string; keyId: string; runId: string | undefined; requestId: string },
  ability: AbilityDef,
  input: unknown,
): Promise<ConsumedPermit | undefined> {
  if (ability.service === "trust") return undefined;
  if (call.runId === undefined) {
    if (gate.requiresRun(call.tenant, ability.id))
      throw new GantryError("forbidden", `This tenant requires ${ability.id} to be called under a trust run.`, {
        reason: "Create a run with a permit for this exact call (trust.preflight), then send its id as context.runId.",
        details: [{ path: "/context/runId", message: "A run is required for this ability", code: "run_required" }],
      });
    return undefined;
  }
  const inputHash = sha256Hex(canonicalJson(input));
  try {
    const permit = await gate.consume({
      tenant: call.tenant,
      key_id: call.keyId,
      run_id: call.runId,
      ability: ability.id,
      input_hash: inputHash,
      request_id: call.requestId,
    });
    return { ...permit, inputHash };
  } catch (err) {
    // Fail closed: without the trust service no call under a run runs.
    if (err instanceof GantryError && err.code === "unavailable" && !err.reason)
      throw new GantryError("unavailable", "The trust service is unavailable; calls under a run cannot run now.", {
        reason: "Its permits are checked by the trust service, which is not reachable. Retry shortly.",
        retryAfterMs: 1_000,
        cause: err,
      });
    throw err;
  }
}

/**
 * Records the receipt of a call that consumed a permit. The call has already happened, so a failure
 * to record is logged, not turned into a failure of the call.
 */
export async function recordRunReceipt(
  gate: PermitGate,
  log: Logger,
  req: {
    tenant: string;
    requestId: string;
    permit: ConsumedPermit;
    ability: string;
    resultJson: string | undefined;
    status: number;
    atMs: number;
  },
): Promise<void> {
  try {
    const resultHash = req.resultJson === undefined ? undefined : sha256Hex(canonicalJson(JSON.parse(req.resultJson)));
    await gate.record({
      tenant: req.tenant,
      requestId: req.requestId,
      permit: req.permit,
      ability: req.ability,
      resultHash,
      status: req.status,
      atMs: req.atMs,
    });
  } catch (err) {
    log.error(
      { requestId: req.requestId, runId: req.permit.runId, permitId: req.permit.permitId, err: String(err) },
      "receipt not recorded",
    );
  }
}
