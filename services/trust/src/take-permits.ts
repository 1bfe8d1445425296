/**
 * @module trust/take-permits
 * The statement that takes permits (`trust.take_permits`) and its arguments, apart from the rest of
 * permits.ts: the log's append (log-append.ts) runs it in the receipts' statement, and the append is
 * what the service's context holds, so it must not import the runs and their refusals, which import
 * the context back.
 */
import { type ConsumePermitRequest, preparedQuery } from "@gantry/kit";

/**
 * Takes the permits of a batch of calls of one tenant in one statement: each call's run must be the
 * tenant's, of its key and unexpired, and the permit issued for its ability and input. Calls with the
 * same run, key, ability and input (a group) take that many permits, earliest position first, the
 * k-th call of the group in the batch's order the k-th of them; a group with fewer permits left
 * than calls leaves its last callers without one. LIMIT per group, FOR UPDATE SKIP LOCKED: a
 * concurrent batch skips only the permits this one takes, not the rest of the run, and an identical
 * permit locked by it is taken by the other rather than waited for and lost. The run is checked once
 * per group and the permits are read from `permits_issued_idx` (issued only, by position), so the
 * used permits of a long run are never read. Returns the calls that got one, by ordinal (1-based).
 *
 * The statement is the SQL function `trust.take_permits` (migrations 20261231200000_take_permits_function
 * and 20270101000000_take_permits_sql; a change to it is a new migration): there it keeps one
 * generic plan per connection, where as a prepared statement Postgres planned it again on every
 * call, about 1 ms of backend CPU each. The setting is the function's, not the connection's: every
 * other statement of the service keeps the automatic plan cache.
 */
export const TAKE_PERMITS =
  "SELECT ord, id FROM trust.take_permits($1, $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7)";
/** `trust.take_permits`'s arguments after the tenant. */
export type TakeArgs = [
  runIds: string[],
  keyIds: string[],
  abilities: string[],
  inputHashes: string[],
  requestIds: string[],
  now: Date,
];
export const takePermits = preparedQuery<{ ord: string; id: string }, [tenant: string, ...args: TakeArgs]>(
  "trust.take_permits",
  TAKE_PERMITS,
);

/** A call's request to consume its permit (in a PermitGate.Batch call), its tenant already checked. */
export type PermitRequest = Omit<ConsumePermitRequest, "tenant">;

/**
 * `trust.take_permits`'s arguments after the tenant, for `reqs` at `now`: this module's statement,
 * or the receipts' append that takes the permits in the same statement (log-append.ts).
 */
export function takeArgs(reqs: readonly PermitRequest[], now: number): TakeArgs {
  return [
    reqs.map((r) => r.run_id),
    reqs.map((r) => r.key_id),
    reqs.map((r) => r.ability),
    reqs.map((r) => r.input_hash),
    reqs.map((r) => r.request_id),
    new Date(now),
  ];
}
