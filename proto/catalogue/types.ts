/**
 * @module catalogue/types
 * The shape of one catalogue entry. The catalogue is the single source of truth that gateway
 * validation, the owning services, discovery, docs, OpenAPI and MCP all read, so everything a
 * consumer needs to call an ability lives here and nowhere else.
 */

/** Processes that own abilities. `gateway` owns the meta abilities it can answer on its own. */
export type ServiceName =
  | "gateway"
  | "keys"
  | "connections"
  | "payments"
  | "memory"
  | "content"
  | "trust"
  | "workspace"
  | "web";

/** A JSON Schema (draft 2020-12) object. Kept loose on purpose: Ajv is the judge of validity. */
export type JsonSchema = { [key: string]: unknown };

/** One entry as an area file writes it; `area` and `service` are derived (see areas.ts). */
export interface AbilityEntry {
  /** `<area>.<operation>`, exactly as in spec §4.2 (`{base_url}` is `gantry.about`). */
  id: string;
  /** One line, imperative, shown in discovery, docs, OpenAPI and MCP tool lists. */
  summary: string;
  /**
   * Where the input shape comes from: `spec` = spec §4.3 gives the fields; `ours` = the spec says
   * "not shown" and the shape is our decision (documented in docs/abilities.md).
   */
  inputSource: "spec" | "ours";
  /** Input JSON Schema: `type: "object"`, `additionalProperties: false`, every property described. */
  input: JsonSchema;
  /**
   * Result JSON Schema: what `result` holds on success (proto/catalogue/output.ts builders). OpenAPI
   * responses, MCP `outputSchema` and the typed client come from it, and tests check every result
   * against it.
   */
  output: JsonSchema;
  /** A realistic input that validates against `input`; used by docs, OpenAPI and MCP. */
  example: Record<string, unknown>;
  /**
   * Milliseconds a call of this ability may take before the gateway answers 504 `timeout`, when
   * its work can outlast the gateway's `UPSTREAM_TIMEOUT_MS` (the default): a browser page with its
   * own `timeoutMs` up to 60 s, a PDF. The deadline travels with the call over every hop, and the
   * service stops the call's work when it passes.
   */
  deadlineMs?: number;
}

/** A catalogue entry with what is derived from its id. */
export interface AbilityDef extends AbilityEntry {
  /** The spec area the id belongs to: its first dot-separated segment. */
  area: string;
  /** The process that executes it (proto/catalogue/areas.ts). */
  service: ServiceName;
}
