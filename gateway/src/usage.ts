/**
 * @module gateway/usage
 * Collects which keys were used and reports them to the keys service every few seconds in one
 * batch, so `lastUsed` stays fresh without a database write per request.
 */
import type { Logger, RpcClient } from "@gantry/kit";

export class UsageReporter {
  private readonly seen = new Map<string, { last: number; count: number; source: string }>();
  private readonly timer: NodeJS.Timeout;
  private readonly client: RpcClient<"gantry.keys.v1.KeyResolver">;
  private readonly log: Logger;

  constructor(client: RpcClient<"gantry.keys.v1.KeyResolver">, log: Logger, intervalMs = 5_000) {
    this.client = client;
    this.log = log;
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  used(keyId: string, source: string, at: number): void {
    const s = this.seen.get(keyId);
    if (s) {
      s.last = at;
      s.count++;
    } else this.seen.set(keyId, { last: at, count: 1, source });
  }

  async flush(): Promise<void> {
    if (this.seen.size === 0) return;
    const usage = [...this.seen].map(([key_id, s]) => ({
      key_id,
      last_used_ms: s.last,
      count: s.count,
      source: s.source,
    }));
    this.seen.clear();
    try {
      await this.client.unary("ReportUsage", { usage }, { deadlineMs: 5_000 });
    } catch (err) {
      // Put the batch back so legacy request counts are not lost; lastUsed merges by maximum.
      for (const u of usage) {
        const s = this.seen.get(u.key_id);
        if (s) {
          s.last = Math.max(s.last, u.last_used_ms);
          s.count += u.count;
        } else this.seen.set(u.key_id, { last: u.last_used_ms, count: u.count, source: u.source });
      }
      this.log.debug({ err: String(err) }, "usage report failed; it is retried with the next one");
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
