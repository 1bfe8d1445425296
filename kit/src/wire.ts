/**
 * @module kit/wire
 * Shapes that cross process boundaries, declared once: the call context a handler sees and its
 * conversion to and from `gantry.ability.v1.CallContext`, and the audit records published in
 * batches on `audit.calls.recorded`. The gRPC messages themselves are generated from the .proto
 * files (kit/src/generated/grpc.ts, by kit/scripts/generate.ts), never retyped here.
 */
import type { CallContext as GrpcCallContext, CallContextInit } from "./generated/grpc.ts";

export type { GrpcCallContext };
export type { ConsumePermitRequest, KeyRecord } from "./generated/grpc.ts";

/** What a handler knows about the caller; the gateway fills it from the resolved key. */
export interface CallContext {
  requestId: string;
  /** Effective tenant (nested `acme/shop1` for sub-tenant calls). Every query is scoped by it. */
  tenant: string;
  keyTenant: string;
  keyId: string;
  scopes: string[];
  collections: string[];
  products: string[];
  admin: boolean;
  subTenants: boolean;
  runId?: string;
  verticalId?: string;
  /**
   * The public base URL of the gateway that took the call (its PUBLIC_URL, else the request's
   * protocol and Host), for links a service hands out: `${baseUrl}/v1/files/<service>/…`.
   */
  baseUrl?: string;
  /**
   * When the caller stops waiting (epoch ms on this process's clock; from the hop's `grpc-timeout`
   * or the Call's `deadline_ms`, never from the wire context). A hop on the call's behalf passes
   * what is left on (`forwardCall`, kit/call-signal).
   */
  deadline?: number;
  /** Aborts when the deadline passes or the caller gave up (disconnected, cancelled): stop working. */
  signal?: AbortSignal;
}

export function toGrpcContext(c: CallContext): CallContextInit {
  return {
    request_id: c.requestId,
    tenant: c.tenant,
    key_tenant: c.keyTenant,
    key_id: c.keyId,
    scopes: c.scopes,
    collections: c.collections,
    products: c.products,
    admin: c.admin,
    sub_tenants: c.subTenants,
    run_id: c.runId ?? "",
    vertical_id: c.verticalId ?? "",
    base_url: c.baseUrl ?? "",
  };
}

export function fromGrpcContext(c: GrpcCallContext): CallContext {
  return {
    requestId: c.request_id,
    tenant: c.tenant,
    keyTenant: c.key_tenant,
    keyId: c.key_id,
    scopes: c.scopes,
    collections: c.collections,
    products: c.products,
    admin: c.admin,
    subTenants: c.sub_tenants,
    runId: c.run_id || undefined,
    verticalId: c.vertical_id || undefined,
    baseUrl: c.base_url || undefined,
  };
}

/** One gateway call, allowed or refused. `requestId` is the record's identity (and receipt). */
export interface AuditRecord {
  requestId: string;
  tenant: string;
  keyId?: string;
  ability?: string;
  status: number;
  errorCode?: string;
  durationMs: number;
  /** SHA-256 (hex) of the JSON input; the input itself is never audited. */
  inputHash?: string;
  at: string;
}

/** The payload of one `audit.calls.recorded` message: the records of up to 256 calls. */
export interface AuditBatch {
  records: AuditRecord[];
}
