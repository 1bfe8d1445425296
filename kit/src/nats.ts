/**
 * @module kit/nats
 * The NATS connection every process shares, and the JetStream streams the system declares. Streams
 * are declared explicitly at start (idempotently) rather than created on first publish, so a
 * missing stream is a start-up error, not a lost message.
 */
import { connect, type NatsConnection } from "@nats-io/transport-node";
import {
  jetstream,
  jetstreamManager,
  type JetStreamClient,
  type JetStreamManager,
  type StreamConfig,
} from "@nats-io/jetstream";
import type { Logger } from "./logger.ts";
import { telemetryOn, tracedPublish } from "./telemetry.ts";

export type { NatsConnection, JetStreamClient, JetStreamManager };

export interface Nats {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** The login's inbox (`_INBOX.<login>`), the only one it may subscribe under; nats.js's default without a login. */
  inboxPrefix?: string;
}

/** Streams of the system: name → subjects. Each owner declares its own at start. */
export const STREAMS = {
  /** One record per gateway call; persisted by the keys service. */
  AUDIT: { name: "AUDIT", subjects: ["audit.>"] },
  /** Key lifecycle notices (issued, rotated, revoked, expired); gateways drop cached keys on them. */
  KEYS: { name: "KEYS", subjects: ["keys.>"] },
  /** Tenant events from event.emit: `events.<tenant token>.<event>`; published by the workspace service. */
  EVENTS: { name: "EVENTS", subjects: ["events.>"] },
  /** Workflow runs: `workflows.<tenant token>.<workflow>.triggered|delivered|failed`; workspace service. */
  WORKFLOWS: { name: "WORKFLOWS", subjects: ["workflows.>"] },
  /** The lessons inbox: `memory.lesson.recorded`, for the consolidation pipeline; published by the memory service. */
  LESSONS: { name: "LESSONS", subjects: ["memory.lesson.>"] },
  /** Connection lifecycle: `connections.connection.connected|refreshed|needs_reauth|revoked|shared|share_revoked`; connections service. */
  CONNECTIONS: { name: "CONNECTIONS", subjects: ["connections.>"] },
} as const satisfies Record<string, { name: string; subjects: string[] }>;

export const SUBJECTS = {
  auditCallsRecorded: "audit.calls.recorded",
  keyRevoked: "keys.key.revoked",
  keyRotated: "keys.key.rotated",
  keyIssued: "keys.key.issued",
  keyExpired: "keys.key.expired",
  /** A lesson appended to the inbox (stream LESSONS). */
  lessonRecorded: "memory.lesson.recorded",
  /** Core NATS, no stream: a memory partition changed; replicas patch or drop their in-memory copy. */
  memoryPartitionChanged: "memory.partition.changed",
  /** Consent completed: the connection is usable (stream CONNECTIONS). */
  connectionConnected: "connections.connection.connected",
  /** The access token was refreshed (stream CONNECTIONS). */
  connectionRefreshed: "connections.connection.refreshed",
  /** The provider refused a refresh (`invalid_grant`): consent must be given again (stream CONNECTIONS). */
  connectionNeedsReauth: "connections.connection.needs_reauth",
  /** The connection was revoked; its service falls back to the platform account (stream CONNECTIONS). */
  connectionRevoked: "connections.connection.revoked",
  /** The owner shared the connection's tools with another principal (stream CONNECTIONS). */
  connectionShared: "connections.connection.shared",
  /** A share of the connection was revoked (stream CONNECTIONS). */
  connectionShareRevoked: "connections.connection.share_revoked",
} as const;

/**
 * The tenant as ONE subject token. Tenant ids may contain `.` (the NATS token separator) and `/`
 * (sub-tenants), so they are escaped: ASCII letters, digits and `-` pass through; every other byte
 * (UTF-8) becomes `_` followed by two upper-case hex digits. `acme` → `acme`, `acme/shop1` →
 * `acme_2Fshop1`, `north.wind_co` → `north_2Ewind_5Fco`. The mapping is injective and reversible
 * ({@link tenantFromToken}), and never yields `*`, `>` or `.`, so a subscriber can build exact or
 * wildcard subjects for a tenant without ever matching another tenant (or a sub-tenant).
 */
export function tenantToken(tenant: string): string {
  let out = "";
  for (const byte of new TextEncoder().encode(tenant)) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9-]/.test(c) ? c : `_${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** Inverse of {@link tenantToken}; throws on a token it could not have produced. */
export function tenantFromToken(token: string): string {
  if (!/^(?:[A-Za-z0-9-]|_[0-9A-F]{2})+$/.test(token)) throw new Error(`not a tenant token: ${JSON.stringify(token)}`);
  const bytes: number[] = [];
  for (let i = 0; i < token.length; i++) {
    if (token[i] === "_") {
      bytes.push(parseInt(token.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(token.charCodeAt(i));
  }
  const tenant = new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array(bytes));
  if (tenantToken(tenant) !== token) throw new Error(`not a canonical tenant token: ${JSON.stringify(token)}`);
  return tenant;
}

/** `events.<tenant token>.<event>` (stream EVENTS); event names are already subject-safe tokens. */
export function eventSubject(tenant: string, event: string): string {
  return `events.${tenantToken(tenant)}.${event}`;
}

/** `workflows.<tenant token>.<workflow>.<what>` (stream WORKFLOWS), what = triggered | delivered | failed. */
export function workflowSubject(tenant: string, workflow: string, what: "triggered" | "delivered" | "failed"): string {
  return `workflows.${tenantToken(tenant)}.${workflow}.${what}`;
}

/**
 * NATS_URL as the client takes it: the servers, and the login that a URL carries
 * (`nats://user:password@host:4222`; nats.js reads no credentials from a URL itself). Every
 * process has a login of its own (SECURITY.md, "Who may reach what").
 */
export function natsConnectOptions(url: string): {
  servers: string[];
  user?: string;
  pass?: string;
  inboxPrefix?: string;
} {
  let user: string | undefined;
  let pass: string | undefined;
  const servers = url.split(",").map((server) => {
    const trimmed = server.trim();
    if (!trimmed.includes("@")) return trimmed;
    const parsed = new URL(trimmed.includes("://") ? trimmed : `nats://${trimmed}`);
    user ??= decodeURIComponent(parsed.username);
    pass ??= decodeURIComponent(parsed.password);
    return `${parsed.protocol}//${parsed.host}`;
  });
  // Replies come to `_INBOX.<login>.…`, the only inbox the login may subscribe to: no process can
  // listen to another's replies (JetStream acks, consumer deliveries).
  return { servers, ...(user ? { user, pass, inboxPrefix: `_INBOX.${user}` } : {}) };
}

export async function connectNats(url: string, name: string, log: Logger): Promise<Nats> {
  const options = natsConnectOptions(url);
  const nc = await connect({
    ...options,
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    waitOnFirstConnect: true,
    // Without it nats.js makes and formats an Error for every request, so for every JetStream
    // publish, in case one fails: ~95 -> ~48 us of client CPU a publish
    // (kit/scripts/nats-publish-cost.ts). A failed publish still says what failed; only the
    // caller's async frames are missing from its stack.
    noAsyncTraces: true,
  });
  (async () => {
    for await (const s of nc.status()) {
      if (s.type === "disconnect" || s.type === "reconnect") log.warn({ nats: s.type }, "nats connection status");
    }
  })().catch(() => {});
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  if (telemetryOn()) {
    // Every publish of the process, whoever makes it, is a span of the call it is made for (kit/telemetry).
    const publish = js.publish.bind(js);
    js.publish = (subject, payload, opts) => tracedPublish(subject, () => publish(subject, payload, opts));
  }
  return { nc, js, jsm, ...(options.inboxPrefix ? { inboxPrefix: options.inboxPrefix } : {}) };
}

/** Creates the stream, or updates its subjects when it exists. */
export async function ensureStream(
  jsm: JetStreamManager,
  config: Partial<StreamConfig> & { name: string; subjects: string[] },
): Promise<void> {
  try {
    const info = await jsm.streams.info(config.name);
    const missing = config.subjects.some((s) => !info.config.subjects?.includes(s));
    if (missing) await jsm.streams.update(config.name, { ...info.config, subjects: config.subjects });
  } catch (err) {
    if (
      (err as { name?: string }).name === "StreamNotFoundError" ||
      /not found/i.test(String((err as Error).message))
    ) {
      await jsm.streams.add({ duplicate_window: 120_000_000_000, ...config });
    } else {
      throw err;
    }
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeJson(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

export function decodeJson<T>(data: Uint8Array): T {
  return JSON.parse(decoder.decode(data)) as T;
}
