/**
 * @module gateway/pipeline/envelope
 * The request envelope of spec §2.1/§4.2 (`{input, context?}`, plus `ability` on the execute path)
 * and the CallContext of §2.2, checked strictly: unknown fields are named, not ignored.
 */
import { GantryError, type ErrorDetail } from "@gantry/kit";
import type { KeyRecord } from "../key-cache.ts";

export interface Envelope {
  ability?: unknown;
  input: Record<string, unknown>;
  context: { tenantId?: string; runId?: string; verticalId?: string };
}

const CONTEXT_FIELDS = new Set(["tenantId", "runId", "verticalId"]);
const SUB_TENANT = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const CONTEXT_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export function parseEnvelope(body: unknown, executePath: boolean): Envelope {
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new GantryError("invalid_request", 'The request body must be a JSON object: {"input": {...}}.');
  }
  const b = body as Record<string, unknown>;
  const allowed = executePath ? ["ability", "input", "context"] : ["input", "context"];
  const details: ErrorDetail[] = [];
  for (const k of Object.keys(b)) {
    if (!allowed.includes(k))
      details.push({
        path: `/${k}`,
        message: `/${k} is not a field of the request envelope (allowed: ${allowed.join(", ")})`,
        code: "additionalProperties",
      });
  }
  if (!("input" in b))
    details.push({
      path: "/input",
      message: '/input is required: send {"input": {...}} (an empty object when the ability takes no input)',
      code: "required",
    });
  else if (b.input === null || typeof b.input !== "object" || Array.isArray(b.input))
    details.push({ path: "/input", message: "/input must be an object", code: "type" });
  const ctx = b.context;
  if (ctx !== undefined) {
    if (ctx === null || typeof ctx !== "object" || Array.isArray(ctx))
      details.push({ path: "/context", message: "/context must be an object", code: "type" });
    else {
      for (const [k, v] of Object.entries(ctx)) {
        if (!CONTEXT_FIELDS.has(k))
          details.push({
            path: `/context/${k}`,
            message: `/context/${k} is not a CallContext field (allowed: tenantId, runId, verticalId)`,
            code: "additionalProperties",
          });
        else if (typeof v !== "string")
          details.push({ path: `/context/${k}`, message: `/context/${k} must be a string`, code: "type" });
        else if (k === "tenantId" && !SUB_TENANT.test(v))
          details.push({
            path: "/context/tenantId",
            message: "/context/tenantId must be 1-63 characters of a-z, 0-9, _ or -, starting with a letter or digit",
            code: "pattern",
          });
        else if (k !== "tenantId" && !CONTEXT_ID.test(v))
          details.push({
            path: `/context/${k}`,
            message: `/context/${k} must be 1-128 characters of letters, digits, . _ : -`,
            code: "pattern",
          });
      }
    }
  }
  if (details.length) {
    throw new GantryError("invalid_request", details[0].message, { details });
  }
  return { ability: b.ability, input: b.input as Record<string, unknown>, context: (ctx ?? {}) as Envelope["context"] };
}

/**
 * The tenant a call acts for: always the key's; `context.tenantId` nests under it, and only for keys
 * with the sub-tenant flag. From any other key it is refused, never silently ignored.
 */
export function effectiveTenant(key: KeyRecord, tenantId: string | undefined): string {
  if (tenantId === undefined) return key.tenant;
  if (!key.sub_tenants) {
    throw new GantryError("forbidden", "context.tenantId is only honoured for keys with the sub-tenant flag.", {
      reason: "Remove context.tenantId, or use a key issued with subTenants: true.",
    });
  }
  return `${key.tenant}/${tenantId}`;
}
