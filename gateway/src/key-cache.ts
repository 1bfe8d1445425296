/**
 * @module gateway/key-cache
 * Resolved keys, cached by the SHA-256 of the secret for at most 30 s (spec §8). A NATS notice from
 * the keys service (revoked, rotated) evicts a key at once, so revocation takes effect in well under
 * a second on every gateway; the TTL is only the fallback if a notice is lost. Unknown keys are
 * remembered briefly so a flood of made-up keys does not become a flood of lookups, in a map of
 * their own: however many a caller makes up, they push out only each other, never a real key.
 */
import { GantryError, Lru, type KeyRecord, type Logger, type RpcClient } from "@gantry/kit";

export type { KeyRecord };

interface Entry {
  record: KeyRecord | null;
  until: number;
}

const NEGATIVE_TTL_MS = 5_000;
const MAX_KNOWN = 100_000;
const MAX_UNKNOWN = 10_000;

export class KeyCache {
  private readonly byHash = new Lru<string, Entry>(MAX_KNOWN);
  private readonly unknown = new Lru<string, Entry>(MAX_UNKNOWN);
  private readonly inflight = new Map<string, Promise<KeyRecord | null>>();
  private readonly client: RpcClient<"gantry.keys.v1.KeyResolver">;
  private readonly ttlMs: number;
  private readonly log: Logger;
  private readonly now: () => number;
  /** Bumped by every eviction: a lookup that overlapped one may carry the state from before it. */
  private evictions = 0;

  constructor(
    client: RpcClient<"gantry.keys.v1.KeyResolver">,
    ttlMs: number,
    log: Logger,
    now: () => number = Date.now,
  ) {
    this.client = client;
    this.ttlMs = ttlMs;
    this.log = log;
    this.now = now;
  }

  /**
   * The active key with this secret hash, or null. Throws `unavailable` when the keys service is down.
   * `legacyOnly`: the bearer is not a gk_ key, so only the legacy credential store can know it.
   */
  async resolve(hash: string, legacyOnly = false): Promise<KeyRecord | null> {
    const hit = this.byHash.get(hash) ?? this.unknown.get(hash);
    const now = this.now();
    if (hit && hit.until > now) return hit.record;
    let pending = this.inflight.get(hash);
    if (!pending) {
      // Concurrent requests with the same key share one lookup.
      pending = this.lookup(hash, legacyOnly).finally(() => this.inflight.delete(hash));
      this.inflight.set(hash, pending);
    }
    return pending;
  }

  private async lookup(hash: string, legacyOnly: boolean): Promise<KeyRecord | null> {
    const evictionsBefore = this.evictions;
    let record: KeyRecord | null;
    try {
      record = await this.client.unary(
        "ResolveKey",
        { secret_sha256: hash, legacy_only: legacyOnly },
        { deadlineMs: 5_000 },
      );
    } catch (err) {
      if (err instanceof GantryError && err.code === "not_found") record = null;
      else {
        this.log.warn({ err: err instanceof Error ? err.message : String(err) }, "key resolution failed");
        throw new GantryError("unavailable", "Key resolution is unavailable; retry shortly.", {
          retryAfterMs: 1_000,
          cause: err,
        });
      }
    }
    // A revocation notice that arrived while this lookup was in flight may postdate its answer:
    // answer this request, but do not cache it, so the next request resolves afresh.
    if (record && this.evictions !== evictionsBefore) return record;
    if (record) this.byHash.set(hash, { record, until: this.now() + this.ttlMs });
    else this.unknown.set(hash, { record, until: this.now() + Math.min(this.ttlMs, NEGATIVE_TTL_MS) });
    return record;
  }

  /** The key with this hash when this gateway holds it as valid right now (no lookup), else undefined. */
  held(hash: string): KeyRecord | undefined {
    const hit = this.byHash.get(hash);
    return hit !== undefined && hit.until > this.now() ? (hit.record ?? undefined) : undefined;
  }

  /** Whether `hash` is a key this gateway holds as valid right now (no lookup). */
  knows(hash: string): boolean {
    return this.held(hash) !== undefined;
  }

  /** Drops a key (revoked or rotated) so the next request resolves it afresh. */
  evictKeyId(keyId: string): number {
    this.evictions++;
    let n = 0;
    for (const [hash, entry] of this.byHash) {
      if (entry.record?.id === keyId) {
        this.byHash.delete(hash);
        n++;
      }
    }
    return n;
  }

  /** A new key may have a hash that was remembered as unknown. */
  forgetUnknown(): void {
    this.unknown.clear();
  }

  get size(): number {
    return this.byHash.size + this.unknown.size;
  }
}
