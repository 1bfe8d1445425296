/**
 * @module gateway/audit
 * Publishes the audit record of every call to JetStream in batches: one `audit.calls.recorded`
 * message carries up to 256 records, or whatever arrived within 20 ms. One message and one ack per
 * batch instead of per call is what keeps auditing from costing more than the call itself
 * (docs/benchmarks.md). The message id is derived from the batch's first request id, so a retried
 * publish is deduplicated by the stream. Publishing never blocks a response; while NATS is
 * unreachable, records wait in a bounded buffer and are re-sent when it returns. The keys service
 * persists them in Postgres.
 *
 * The batches go out through the kit's JetStream publisher (kit/outbox-publish.ts), as the outbox
 * relay's do, rather than `js.publish`: the same stored-or-refused answer per message, without a
 * request object, timer and `RequestError("cancelled")` per publish (~55 µs less client CPU a
 * batch; gateway/README.md, *Cost of a call*).
 *
 * A record can be lost only if this process dies within the 20 ms before its batch is published;
 * a clean shutdown flushes first.
 */
import {
  SUBJECTS,
  encodeJson,
  outsideTrace,
  type AuditBatch,
  type AuditRecord,
  type Logger,
  type Nats,
} from "@gantry/kit";
import { type JetStreamBatchPublisher, jetStreamBatchPublisher } from "@gantry/kit/outbox-publish.ts";

let isoSecond = Number.NaN;
let isoPrefix = "";

/**
 * `at` of an audit record: the ISO 8601 time (UTC, milliseconds) of `ms`, as `toISOString` writes
 * it. Formatting a Date for every call was the costliest line of the pipeline's own code (about
 * 1.5 µs of ~25 µs, gateway/README.md, *Cost of a call*); the text up to the second changes once a
 * second, so only the milliseconds are written per call.
 */
export function auditTime(ms = Date.now()): string {
  const second = Math.floor(ms / 1000);
  if (second !== isoSecond) {
    isoSecond = second;
    isoPrefix = new Date(second * 1000).toISOString().slice(0, -4);
  }
  return `${isoPrefix}${String(ms - second * 1000).padStart(3, "0")}Z`;
}

export const AUDIT_BATCH_MAX = 256;
export const AUDIT_BATCH_DELAY_MS = 20;
const MAX_BUFFER = 100_000;
const MAX_IN_FLIGHT_BATCHES = 8;
const PUBLISH_TIMEOUT_MS = 5_000;

export class AuditPublisher {
  private readonly publisher: JetStreamBatchPublisher;
  private readonly log: Logger;
  private buffer: AuditRecord[] = [];
  private inFlight = 0;
  private inFlightRecords = 0;
  private timer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private dropped = 0;
  published = 0;

  /** `publisher`: stood in for by tests and the cost scripts; by default one on `nats`. */
  constructor(
    nats: Pick<Nats, "nc" | "inboxPrefix">,
    log: Logger,
    publisher: JetStreamBatchPublisher = jetStreamBatchPublisher(nats),
  ) {
    this.publisher = publisher;
    this.log = log;
  }

  record(rec: AuditRecord): void {
    if (this.buffer.length >= MAX_BUFFER) {
      // Only reachable after a long NATS outage; the count is logged so the gap is visible.
      this.buffer.shift();
      if (++this.dropped % 1000 === 1)
        this.log.error({ dropped: this.dropped }, "audit buffer full; oldest records dropped");
    }
    this.buffer.push(rec);
    if (this.buffer.length >= AUDIT_BATCH_MAX) this.pump();
    else this.timer ??= setTimeout(() => this.pump(), AUDIT_BATCH_DELAY_MS);
  }

  private pump(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    while (this.inFlight < MAX_IN_FLIGHT_BATCHES && this.buffer.length > 0 && !this.retryTimer) {
      const records = this.buffer.length <= AUDIT_BATCH_MAX ? this.buffer : this.buffer.slice(0, AUDIT_BATCH_MAX);
      this.buffer = this.buffer.length <= AUDIT_BATCH_MAX ? [] : this.buffer.slice(AUDIT_BATCH_MAX);
      // A batch holds many calls' records: its publish is no span of the call that happened to fill it.
      outsideTrace(() => this.send(records));
    }
    if (this.buffer.length > 0 && !this.retryTimer) this.timer ??= setTimeout(() => this.pump(), AUDIT_BATCH_DELAY_MS);
  }

  private send(records: AuditRecord[]): void {
    this.inFlight++;
    this.inFlightRecords += records.length;
    const batch: AuditBatch = { records };
    const message = {
      subject: SUBJECTS.auditCallsRecorded,
      data: encodeJson(batch),
      msgId: `${records[0].requestId}+${records.length}`,
    };
    this.publisher
      .publishAll([message], PUBLISH_TIMEOUT_MS)
      .then(([err]) => {
        if (!err) {
          this.published += records.length;
          return;
        }
        this.buffer = records.concat(this.buffer);
        if (!this.retryTimer) {
          this.log.warn(
            { err: String(err), buffered: this.buffer.length },
            "audit publish failed; buffering and retrying",
          );
          this.retryTimer = setTimeout(() => {
            this.retryTimer = undefined;
            this.pump();
          }, 500);
        }
      })
      .finally(() => {
        this.inFlight--;
        this.inFlightRecords -= records.length;
        if (this.buffer.length >= AUDIT_BATCH_MAX) this.pump();
      });
  }

  get pending(): number {
    return this.buffer.length + this.inFlightRecords;
  }

  /** Publishes what is buffered and waits (bounded) until it is acknowledged, for a clean shutdown. */
  async flush(timeoutMs = 5_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    this.pump();
    while (this.pending > 0 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 20));
      if (!this.retryTimer) this.pump();
    }
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.timer) clearTimeout(this.timer);
  }
}
