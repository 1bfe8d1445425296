/**
 * @module gateway/audit
 * Publishes one audit record per call to JetStream (`audit.call.recorded`, message id = request id,
 * so a retried publish is deduplicated by the stream). Publishing never blocks the response: records
 * are pipelined, and while NATS is unreachable they wait in a bounded buffer and are re-sent when it
 * returns. The keys service persists them in Postgres.
 */
import { SUBJECTS, encodeJson, type AuditRecord, type Logger, type Nats } from "@gantry/kit";

const MAX_BUFFER = 100_000;
const MAX_IN_FLIGHT = 1_024;

export class AuditPublisher {
  private readonly nats: Nats;
  private readonly log: Logger;
  private readonly buffer: AuditRecord[] = [];
  private inFlight = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private dropped = 0;
  published = 0;

  constructor(nats: Nats, log: Logger) {
    this.nats = nats;
    this.log = log;
  }

  record(rec: AuditRecord): void {
    if (this.buffer.length >= MAX_BUFFER) {
      // Only reachable after a long NATS outage; the count is logged so the gap is visible.
      this.buffer.shift();
      if (++this.dropped % 1000 === 1) this.log.error({ dropped: this.dropped }, "audit buffer full; oldest records dropped");
    }
    this.buffer.push(rec);
    this.pump();
  }

  private pump(): void {
    while (this.inFlight < MAX_IN_FLIGHT && this.buffer.length > 0 && !this.retryTimer) {
      const rec = this.buffer.shift()!;
      this.inFlight++;
      this.nats.js
        .publish(SUBJECTS.auditCallRecorded, encodeJson(rec), { msgID: rec.requestId, timeout: 5_000 })
        .then(
          () => {
            this.published++;
          },
          (err: unknown) => {
            this.buffer.unshift(rec);
            if (!this.retryTimer) {
              this.log.warn({ err: String(err), buffered: this.buffer.length }, "audit publish failed; buffering and retrying");
              this.retryTimer = setTimeout(() => {
                this.retryTimer = undefined;
                this.pump();
              }, 500);
            }
          },
        )
        .finally(() => {
          this.inFlight--;
          if (this.buffer.length > 0) this.pump();
        });
    }
  }

  get pending(): number {
    return this.buffer.length + this.inFlight;
  }

  /** Waits (bounded) until buffered records are published, for a clean shutdown. */
  async flush(timeoutMs = 5_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (this.pending > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    if (this.retryTimer) clearTimeout(this.retryTimer);
  }
}
