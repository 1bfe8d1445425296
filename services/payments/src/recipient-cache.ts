/**
 * @module payments/recipient-cache
 * The recipients payout.send has read, kept in this process so that a payout is one statement
 * instead of a read and a statement (README, *Cost of a payout*). It is only an optimisation:
 * the accepting statement checks that the row still holds every value the payout was built from
 * (src/payout-writes.ts `acceptPayout`) and refuses with `recipient_changed` when another replica
 * re-verified it, SQL changed it or it is gone; the call then reads afresh. A cold cache reads, as
 * before. Row-level security still holds each read and each check to the caller's tenant.
 */
import { Lru } from "@gantry/kit";
import type pg from "pg";
import type { Recipient } from "./db.ts";
import { recipientOf } from "./payout-writes.ts";

/**
 * A recipient row takes ~1.3 KB of heap (10,000 rows shaped as pg returns them: 11.9 MiB), so the
 * cache stays near 5 MiB. A tenant that pays more recipients than this in turn reads as before.
 */
const MAX_RECIPIENTS = 4_096;

export class RecipientCache {
  readonly #rows: Lru<string, Recipient>;

  constructor(max = MAX_RECIPIENTS) {
    this.#rows = new Lru(max);
  }

  /** The recipient as last read in this process, or undefined (never read, or dropped). */
  cached(tenant: string, id: string): Recipient | undefined {
    return this.#rows.get(key(tenant, id));
  }

  /** The recipient as stored now (kept for the next call), or undefined when `tenant` has none by that id. */
  async read(pool: pg.Pool, tenant: string, id: string): Promise<Recipient | undefined> {
    const row = await recipientOf(pool, id, tenant);
    if (row) this.#rows.set(key(tenant, id), row);
    else this.#rows.delete(key(tenant, id));
    return row;
  }
}

// Length-prefixed, so no tenant and id pair spells another's key.
const key = (tenant: string, id: string) => `${tenant.length}:${tenant}${id}`;
