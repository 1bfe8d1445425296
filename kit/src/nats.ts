/**
 * @module kit/nats
 * The NATS connection every process shares, and the JetStream streams the system declares. Streams
 * are declared explicitly at start (idempotently) rather than created on first publish, so a
 * missing stream is a start-up error, not a lost message.
 */
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager, type StreamConfig } from "@nats-io/jetstream";
import type { Logger } from "./logger.ts";

export type { NatsConnection, JetStreamClient, JetStreamManager };

export interface Nats {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
}

/** Streams of the system: name → subjects. Each owner declares its own at start. */
export const STREAMS = {
  /** One record per gateway call; persisted by the keys service. */
  AUDIT: { name: "AUDIT", subjects: ["audit.>"] },
  /** Key lifecycle notices (issued, rotated, revoked, expired); gateways drop cached keys on them. */
  KEYS: { name: "KEYS", subjects: ["keys.>"] },
} as const satisfies Record<string, { name: string; subjects: string[] }>;

export const SUBJECTS = {
  auditCallRecorded: "audit.call.recorded",
  keyRevoked: "keys.key.revoked",
  keyRotated: "keys.key.rotated",
  keyIssued: "keys.key.issued",
} as const;

export async function connectNats(url: string, name: string, log: Logger): Promise<Nats> {
  const nc = await connect({
    servers: url.split(","),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    waitOnFirstConnect: true,
  });
  (async () => {
    for await (const s of nc.status()) {
      if (s.type === "disconnect" || s.type === "reconnect") log.warn({ nats: s.type }, "nats connection status");
    }
  })().catch(() => {});
  const jsm = await jetstreamManager(nc);
  return { nc, js: jetstream(nc), jsm };
}

/** Creates the stream, or updates its subjects when it exists. */
export async function ensureStream(jsm: JetStreamManager, config: Partial<StreamConfig> & { name: string; subjects: string[] }): Promise<void> {
  try {
    const info = await jsm.streams.info(config.name);
    const missing = config.subjects.some((s) => !info.config.subjects?.includes(s));
    if (missing) await jsm.streams.update(config.name, { ...info.config, subjects: config.subjects });
  } catch (err) {
    if ((err as { name?: string }).name === "StreamNotFoundError" || /not found/i.test(String((err as Error).message))) {
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
