/**
 * @module payments/accepted-together
 * A creation's accepting statements that arrive together, as one statement (kit `batchedWrites`),
 * for payout.send (src/payout-writes.ts) and payment.initiate (src/payment-writes.ts): at most
 * `inFlight` of a tenant's run at once, and what arrives meanwhile goes in the next. Each call
 * answers what its own statement would: its record's id when it was written, nothing when its key
 * was taken. A statement that Postgres refuses (one payout's recipient changed, the reservations
 * together beyond the balance, a deadlock) writes nothing, and each of its calls runs alone, so
 * every refusal is the call's own. README, *Accepted together*.
 */
import { batchedWrites, runPrepared } from "@gantry/kit";
import type pg from "pg";

/** An accepting statement as the kit's `idempotentInsert` runs it with `claimFirst`: the creation's values, then the key's six. */
export interface Claim {
  name: string;
  text: string;
  values: unknown[];
}

export function acceptedTogether(opts: {
  inFlight: number;
  /** The statement for several: its name, text, and its values from the claims, sorted by key. */
  name: string;
  text: string;
  values: (sorted: Claim[]) => unknown[];
  /** Where a claim's values hold its key (0-based): claims are sorted by key, so two statements sharing keys take them in one order. */
  keyAt: number;
}) {
  const write = batchedWrites<Claim, Array<{ id: string }>>({
    inFlight: opts.inFlight,
    one: (pool, c) => runPrepared<{ id: string }>(pool, c.name, c.text, c.values),
    many: async (pool, claims) => {
      const sorted = [...claims].sort((a, b) =>
        (a.values[opts.keyAt] as string) < (b.values[opts.keyAt] as string) ? -1 : 1,
      );
      const rows = await runPrepared<{ id: string }>(pool, opts.name, opts.text, opts.values(sorted));
      const written = new Set(rows.map((r) => r.id));
      // The record's id is each claim's first value.
      return claims.map((c) => (written.has(c.values[0] as string) ? [{ id: c.values[0] as string }] : []));
    },
  });
  return (pool: pg.Pool, claim: Claim) => write(pool, claim, claim.name);
}
