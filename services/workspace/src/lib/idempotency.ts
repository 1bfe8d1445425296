/**
 * @module workspace/lib/idempotency
 * `idempotencyKey` on create-like abilities, scoped per (tenant, ability, key):
 *
 * - same key + same input (canonical JSON without the key, after schema defaults) → the record the
 *   first call created, read fresh;
 * - same key + different input → 409 `conflict` whose details name every differing field;
 * - concurrent first uses → exactly one record: the idempotency row is inserted first, in the same
 *   transaction as the record, under the table's primary key (tenant, ability, key). Postgres makes
 *   the second insert wait for the first transaction and then fail with a unique violation; the loser
 *   rolls back (its record with it) and answers with the winner's record.
 */
import { GantryError, type CallContext, type ErrorDetail } from "@gantry/kit";
import { isUniqueViolation, type PrismaClient, type Tx } from "../db.ts";
import { canonicalJson, sha256Hex } from "./canonical.ts";

export interface IdempotentCreate<T> {
  db: PrismaClient;
  call: CallContext;
  ability: string;
  input: Record<string, unknown>;
  /** The id the new record will get (generated before the transaction). */
  recordId: string;
  /** Creates the record inside the transaction; returns the result. */
  create: (tx: Tx) => Promise<T>;
  /** Reads the record a previous call created (same tenant), for a replay. */
  replay: (recordId: string) => Promise<T>;
  /** Interactive-transaction limits for large creations (sim.generate). */
  txOptions?: { timeout?: number; maxWait?: number };
}

function withoutKey(input: Record<string, unknown>): Record<string, unknown> {
  const { idempotencyKey: _key, ...rest } = input;
  return rest;
}

/** Top-level fields whose values differ between the first input and this one. */
export function differingFields(first: Record<string, unknown>, now: Record<string, unknown>): string[] {
  const keys = new Set([...Object.keys(first), ...Object.keys(now)]);
  return [...keys].filter((k) => canonicalJson(first[k]) !== canonicalJson(now[k])).sort();
}

function mismatch(ability: string, key: string, fields: string[]): GantryError {
  const details: ErrorDetail[] = fields.map((f) => ({
    path: `/input/${f}`,
    message: `/input/${f} differs from the first ${ability} call with this idempotencyKey`,
    code: "idempotency_mismatch",
  }));
  return new GantryError("conflict", `idempotencyKey "${key}" was already used for ${ability} with different input (differs in: ${fields.join(", ")}).`, {
    reason: "Reuse an idempotencyKey only to retry the identical request; use a new key for a different request.",
    details,
  });
}

/**
 * Runs `create` exactly once per (tenant, ability, idempotencyKey). Without a key it simply runs
 * `create` in a transaction. Returns `{result, created}`; `created` is false on a replay.
 */
export async function idempotentCreate<T>(opts: IdempotentCreate<T>): Promise<{ result: T; created: boolean }> {
  const { db, call, ability, input, recordId } = opts;
  const key = typeof input.idempotencyKey === "string" ? input.idempotencyKey : undefined;
  if (!key) return { result: await db.$transaction((tx) => opts.create(tx), opts.txOptions), created: true };

  const body = withoutKey(input);
  const inputHash = sha256Hex(canonicalJson(body));
  const where = { tenant_ability_key: { tenant: call.tenant, ability, key } };

  const resolve = async (row: { inputHash: string; input: unknown; recordId: string }) => {
    if (row.inputHash !== inputHash) throw mismatch(ability, key, differingFields((row.input ?? {}) as Record<string, unknown>, body));
    return { result: await opts.replay(row.recordId), created: false };
  };

  const existing = await db.idempotencyRecord.findUnique({ where });
  if (existing) return resolve(existing);
  try {
    const result = await db.$transaction(async (tx) => {
      await tx.idempotencyRecord.create({
        data: { tenant: call.tenant, ability, key, inputHash, input: body as object, recordId, createdAt: new Date() },
      });
      return opts.create(tx);
    }, opts.txOptions);
    return { result, created: true };
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const winner = await db.idempotencyRecord.findUnique({ where });
    if (!winner) throw err;
    return resolve(winner);
  }
}
