/**
 * @module kit/durable-consumer
 * This replica's share of a JetStream durable consumer (explicit acks), the one loop the services'
 * consumers run: replicas share the consumer's messages, each handling at most `concurrency` at a
 * time. The consumer is made at the start of every round, so one that could not be made (NATS down
 * at start) is made on the next, and a round that failed is started again after half a second. It
 * runs in system scope: a consumer serves every tenant, and its handler narrows each message to
 * its tenant.
 *
 * @example
 * const c = startDurableConsumer({ nats, stream: STREAMS.LESSONS.name, consumer: { durable_name: "memory-lessons", ack_wait: 60e9 },
 *   what: "lessons consumer", log, handle: (m) => consolidate(m), failed: (err, m) => m.nak(2_000) });
 * await c.stop();
 */
import {
  AckPolicy,
  type ConsumerConfig,
  type ConsumerMessages,
  type ConsumerUpdateConfig,
  type JsMsg,
} from "@nats-io/jetstream";
import type { Logger } from "./logger.ts";
import type { Nats } from "./nats.ts";
import { asSystem } from "./tenancy.ts";

export interface DurableConsumerOptions {
  nats: Nats;
  stream: string;
  /** The consumer; its ack policy is explicit. */
  consumer: Partial<ConsumerConfig> & { durable_name: string };
  /** Settings an existing consumer (made by an earlier start) is brought in line with, e.g. an ack wait that follows a setting. */
  update?: Partial<ConsumerUpdateConfig>;
  /** Messages handled at once by this replica (default 1: one after the other). */
  concurrency?: number;
  /** Messages pulled ahead (default twice `concurrency`). */
  maxMessages?: number;
  handle: (m: JsMsg) => Promise<void>;
  /** A handler that threw: say so and `nak` the message with a delay. */
  failed: (err: unknown, m: JsMsg) => void;
  log: Logger;
  /** For the logs: "lessons consumer". */
  what: string;
}

const RESTART_MS = 500;
const STOP_WAIT_MS = 3_000;

async function ensureConsumer(opts: DurableConsumerOptions): Promise<void> {
  const { jsm } = opts.nats;
  const name = opts.consumer.durable_name;
  try {
    await jsm.consumers.add(opts.stream, { ...opts.consumer, ack_policy: AckPolicy.Explicit });
  } catch (err) {
    if (!/already (exists|in use)/i.test(String(err))) throw err;
    if (!opts.update) return;
    await jsm.consumers
      .update(opts.stream, name, opts.update)
      .catch((e) => opts.log.warn({ err: String(e), consumer: name }, `could not update the ${opts.what}`));
  }
}

export function startDurableConsumer(opts: DurableConsumerOptions): { stop: () => Promise<void> } {
  const concurrency = opts.concurrency ?? 1;
  let running = true;
  let messages: ConsumerMessages | undefined;
  const inflight = new Set<Promise<void>>();
  const loop = asSystem(async () => {
    while (running) {
      try {
        await ensureConsumer(opts);
        const consumer = await opts.nats.js.consumers.get(opts.stream, opts.consumer.durable_name);
        messages = await consumer.consume({ max_messages: opts.maxMessages ?? concurrency * 2 });
        for await (const m of messages) {
          const p = opts
            .handle(m)
            .catch((err) => opts.failed(err, m))
            .finally(() => inflight.delete(p));
          inflight.add(p);
          if (inflight.size >= concurrency) await Promise.race(inflight);
          if (!running) break;
        }
      } catch (err) {
        if (running) opts.log.warn({ err: String(err) }, `${opts.what} failed; restarting`);
      }
      if (running) await new Promise((r) => setTimeout(r, RESTART_MS));
    }
  }).catch((err) => opts.log.error({ err: String(err) }, `${opts.what} stopped`));
  return {
    stop: async () => {
      running = false;
      await messages?.close().catch(() => {});
      await Promise.race([Promise.all([loop, ...inflight]), new Promise((r) => setTimeout(r, STOP_WAIT_MS))]);
    },
  };
}
