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

/** A creation's value (1-based, as its statement numbers it) that becomes an array of the statement for several: its column in `v`, its type. */
export type ArrayColumn = [position: number, column: string, type: string];

/**
 * The key's values the kit appends to a claim (kit/data/idempotency `idempotentInsert`): tenant,
 * ability, key, input hash, input, record id. All but the ability, the same for every claim, become
 * arrays of `v`.
 */
const KEY_ARRAYS = ["key_tenant", "key", "input_hash", "input", "record_id"];

/**
 * The first CTEs of a statement for several: `v`, the claims' values as rows (the given columns,
 * then the key's), and `claim`, the kit's claim of each key over them (`ON CONFLICT DO NOTHING`: a
 * taken key writes nothing). `next` is the statement's first free parameter number.
 */
export function claimsCtes(columns: ArrayColumn[]): { text: string; next: number } {
  const types = [...columns.map(([, , type]) => type), ...KEY_ARRAYS.map(() => "text")];
  const ability = types.length + 1;
  return {
    text: `v AS MATERIALIZED (
       SELECT * FROM unnest(${types.map((type, i) => `$${i + 1}::${type}[]`).join(", ")})
         AS v(${[...columns.map(([, column]) => column), ...KEY_ARRAYS].join(", ")})),
     claim AS (
       INSERT INTO payments.idempotency_records (tenant, ability, key, input_hash, input, record_id, created_at)
       SELECT key_tenant, $${ability}, key, input_hash, input::jsonb, record_id, now() FROM v
           ON CONFLICT (tenant, ability, key) DO NOTHING RETURNING record_id)`,
    next: ability + 1,
  };
}

/** The parameters of `claimsCtes(columns)` from the claims, in its order. */
export function claimsValues(columns: ArrayColumn[], sorted: Claim[]): unknown[] {
  const n = sorted[0].values.length;
  const keyPositions = [n - 5, n - 3, n - 2, n - 1, n];
  return [
    ...[...columns.map(([position]) => position), ...keyPositions].map((position) =>
      sorted.map((c) => c.values[position - 1]),
    ),
    sorted[0].values[n - 5],
  ];
}

export function acceptedTogether(opts: {
  inFlight: number;
  /** The statement for several: its name, text, and its values from the claims, sorted by key. */
  name: string;
  text: string;
  values: (sorted: Claim[]) => unknown[];
}) {
  const write = batchedWrites<Claim, Array<{ id: string }>>({
    inFlight: opts.inFlight,
    one: (pool, c) => runPrepared<{ id: string }>(pool, c.name, c.text, c.values),
    many: async (pool, claims) => {
      // By key (the third of the key's six values), so two statements sharing keys take them in one order.
      const keyOf = (c: Claim) => c.values[c.values.length - 4] as string;
      const sorted = [...claims].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : 1));
      const rows = await runPrepared<{ id: string }>(pool, opts.name, opts.text, opts.values(sorted));
      const written = new Set(rows.map((r) => r.id));
      // The record's id is each claim's first value.
      return claims.map((c) => (written.has(c.values[0] as string) ? [{ id: c.values[0] as string }] : []));
    },
  });
  return (pool: pg.Pool, claim: Claim) => write(pool, claim, claim.name);
}
