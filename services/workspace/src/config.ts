/**
 * @module workspace/config
 * The workspace service's own environment (on top of the kit's base schema), parsed once at start;
 * its TypeScript type is derived from the schema (`WorkspaceConfig`).
 * `WORKFLOW_ENDPOINTS` is JSON and is checked here too, so a bad endpoint stops the process at start
 * with a message naming the tenant and the problem, instead of failing deliveries later.
 */
import { fileURLToPath } from "node:url";
import { ConfigError, defineEnv, SSRF_DEFAULT_PORTS, type ServiceConfig } from "@gantry/kit";
import { TENANT_PATTERN } from "@gantry/proto/catalogue/schema.ts";

export const DEFAULT_VERTICALS_DIR = fileURLToPath(new URL("../verticals/", import.meta.url));

export const WORKSPACE_ENV = defineEnv({
  WORKFLOW_ENDPOINTS: {
    type: "string",
    default: "{}",
    description: 'per-tenant workflow endpoints as JSON: {"<tenant>": {"url": "https://…", "secret": "<≥16 chars>"}}',
  },
  WORKFLOW_ALLOW_LOOPBACK: {
    type: "boolean",
    default: false,
    description:
      "tests and local development only: let workflow deliveries go to loopback addresses (127.0.0.0/8, ::1; any port) and over plain http",
  },
  WORKFLOW_DELIVERY_ATTEMPTS: {
    type: "integer",
    minimum: 1,
    maximum: 20,
    default: 6,
    description: "delivery attempts per workflow run before it is marked failed",
  },
  WORKFLOW_RETRY_BASE_MS: {
    type: "integer",
    minimum: 10,
    maximum: 600_000,
    default: 2_000,
    description: "backoff before the 2nd attempt; doubles per attempt",
  },
  WORKFLOW_RETRY_MAX_MS: {
    type: "integer",
    minimum: 10,
    maximum: 3_600_000,
    default: 300_000,
    description: "upper bound of the backoff between attempts",
  },
  WORKFLOW_DELIVERY_TIMEOUT_MS: {
    type: "integer",
    minimum: 100,
    maximum: 120_000,
    default: 10_000,
    description: "timeout of one delivery attempt (connect + response)",
  },
  EVENT_MAX_PAYLOAD_BYTES: {
    type: "integer",
    minimum: 256,
    maximum: 900_000,
    default: 65_536,
    description: "largest serialized event.emit payload accepted",
  },
  EVENTS_MAX_AGE_HOURS: {
    type: "integer",
    minimum: 1,
    maximum: 87_600,
    default: 168,
    description: "how long the EVENTS and WORKFLOWS streams keep messages",
  },
  VERTICALS_DIR: {
    type: "string",
    description: `directory of vertical manifests (<slug>.json); default ${DEFAULT_VERTICALS_DIR}`,
  },
});

/** The parsed configuration: the kit's base variables plus WORKSPACE_ENV (derived from the schema). */
export type WorkspaceConfig = ServiceConfig<typeof WORKSPACE_ENV>;

export interface WorkflowEndpoint {
  url: URL;
  secret: string;
}

/** Parses and checks WORKFLOW_ENDPOINTS; throws ConfigError naming every problem. */
export function parseWorkflowEndpoints(raw: string, allowLoopback: boolean): Map<string, WorkflowEndpoint> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    throw new ConfigError(`workspace: WORKFLOW_ENDPOINTS is not valid JSON (${(err as Error).message})`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ConfigError('workspace: WORKFLOW_ENDPOINTS must be a JSON object {"<tenant>": {"url": …, "secret": …}}');
  }
  const out = new Map<string, WorkflowEndpoint>();
  const problems: string[] = [];
  const tenantRe = new RegExp(TENANT_PATTERN);
  for (const [tenant, entry] of Object.entries(value as Record<string, unknown>)) {
    const at = `WORKFLOW_ENDPOINTS["${tenant}"]`;
    if (!tenantRe.test(tenant)) problems.push(`${at}: not a tenant id`);
    const e = entry as { url?: unknown; secret?: unknown } | null;
    if (!e || typeof e !== "object" || Array.isArray(e)) {
      problems.push(`${at}: must be {"url": …, "secret": …}`);
      continue;
    }
    const extra = Object.keys(e).filter((k) => k !== "url" && k !== "secret");
    if (extra.length) problems.push(`${at}: unknown field(s) ${extra.join(", ")}`);
    if (typeof e.secret !== "string" || e.secret.length < 16)
      problems.push(`${at}.secret: a string of at least 16 characters is required`);
    let url: URL | undefined;
    try {
      url = new URL(String(e.url));
    } catch {
      problems.push(`${at}.url: not an absolute URL`);
    }
    if (url) {
      if (url.protocol !== "https:" && !(allowLoopback && url.protocol === "http:")) {
        problems.push(`${at}.url: must be https (plain http only with WORKFLOW_ALLOW_LOOPBACK=true)`);
      }
      const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
      if (!allowLoopback && !SSRF_DEFAULT_PORTS.includes(port))
        problems.push(
          `${at}.url: port ${port} is not allowed (the SSRF guard allows ${SSRF_DEFAULT_PORTS.join(", ")})`,
        );
      if (url.username || url.password)
        problems.push(`${at}.url: must not carry credentials; the request is signed with the secret`);
      if (url.hash) problems.push(`${at}.url: must not have a #fragment`);
    }
    if (url && typeof e.secret === "string") out.set(tenant, { url, secret: e.secret });
  }
  if (problems.length) throw new ConfigError(`workspace: invalid configuration\n  ${problems.join("\n  ")}`);
  return out;
}
