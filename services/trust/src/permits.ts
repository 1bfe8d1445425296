/**
 * @module trust/permits
 * Runs and their single-use permits. A permit is bound to an ability and the SHA-256 of the RFC 8785
 * canonical JSON of the exact input, after the ability's schema applied its defaults: the same
 * bytes the gateway hashes before dispatch, so what was permitted is exactly what runs.
 *
 * `consumePermits` is the gateway's check (the permits of a PermitGate.Batch call), for the concurrent calls of a
 * tenant together: one round trip, an `UPDATE … WHERE status = 'issued' … RETURNING` that also
 * checks each run's tenant, key and expiry, so of any number of concurrent calls holding the same
 * permit exactly one gets it. When a call gets none it says why, most specific first.
 */
import { canonicalJson, GantryError, preparedQuery, sha256Hex, validateInput } from "@gantry/kit";
import { abilityById } from "@gantry/proto/catalogue";
import { type ClaimInput, claimRows } from "./claims.ts";
import type { Context } from "./context.ts";
import type { Prisma, Run } from "./db.ts";
import { newId } from "./ids.ts";
import { type PermitRequest, takeArgs, takePermits } from "./take-permits.ts";

/** SHA-256 (hex) of the canonical JSON of an input. */
export function inputHash(input: unknown): string {
  return sha256Hex(canonicalJson(input));
}

export interface Action {
  ability: string;
  input: Record<string, unknown>;
}

/** Checks each action against its ability's schema (defaults applied) and returns its input hash. */
export function actionHashes(actions: readonly Action[]): string[] {
  return actions.map((action, i) => {
    const path = `/input/actions/${i}`;
    if (!abilityById.has(action.ability))
      throw new GantryError("invalid_request", `actions[${i}].ability "${action.ability}" is not an ability id.`, {
        details: [{ path: `${path}/ability`, message: "No ability has this id", code: "ability_not_found" }],
      });
    const input = structuredClone(action.input);
    try {
      validateInput(action.ability, input);
    } catch (err) {
      if (!(err instanceof GantryError)) throw err;
      throw new GantryError(
        "invalid_request",
        `actions[${i}].input is not a valid input of ${action.ability}: a permit for it could never be used. ${err.message}`,
        {
          details: (err.details ?? []).map((d) => ({
            ...d,
            path: `${path}/input${d.path.replace(/^\/input/, "")}`,
            code: "action_invalid",
            ability: action.ability,
          })),
        },
      );
    }
    return inputHash(input);
  });
}

type RunFields = { task: string; keyId: string; requestId: string; actions: readonly Action[] };

/** The run's row as created now: its id, and its expiry TRUST_RUN_TTL_SECONDS ahead. */
function newRun(ctx: Context, tenant: string, fields: RunFields, now: number): Run {
  return {
    id: newId("run", now),
    tenant,
    task: fields.task,
    keyId: fields.keyId,
    requestId: fields.requestId,
    createdAt: new Date(now),
    expiresAt: new Date(now + ctx.config.TRUST_RUN_TTL_SECONDS * 1000),
  };
}

/** A run with its permits inside the caller's Prisma transaction (plan.execute, beside the plan's own writes). */
export async function createRun(
  ctx: Context,
  tenant: string,
  fields: RunFields,
  db: Prisma.TransactionClient = ctx.db,
): Promise<Run> {
  const hashes = actionHashes(fields.actions);
  const now = ctx.now();
  const run = await db.run.create({ data: newRun(ctx, tenant, fields, now) });
  if (fields.actions.length)
    await db.permit.createMany({
      data: fields.actions.map((a, i) => ({
        id: newId("permit", now),
        tenant,
        runId: run.id,
        position: i,
        ability: a.ability,
        inputHash: hashes[i]!,
        status: "issued",
      })),
    });
  return run;
}

/**
 * trust.preflight's write: the run, its permits and its claims in one statement, atomic by itself.
 * Not a Prisma interactive transaction: Prisma ends one after 5 s, so on a loaded machine (the
 * bench preparing its runs) a preflight whose statements waited that long failed with 500
 * ("A query cannot be executed on an expired transaction"). The permits' and claims' inserts see the
 * run's row: foreign keys are checked when the statement ends.
 */
const insertRunStatement = preparedQuery<
  { id: string },
  [
    id: string,
    tenant: string,
    task: string,
    keyId: string,
    requestId: string,
    createdAt: Date,
    expiresAt: Date,
    permitIds: string[],
    abilities: string[],
    inputHashes: string[],
    claims: string,
  ]
>(
  "trust.insert_run",
  `WITH r AS (
     INSERT INTO trust.runs (id, tenant, task, key_id, request_id, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id),
   p AS (
     INSERT INTO trust.permits (id, tenant, run_id, position, ability, input_hash, status)
     SELECT u.id, $2, r.id, u.ord - 1, u.ability, u.input_hash, 'issued'
       FROM r, unnest($8::text[], $9::text[], $10::text[]) WITH ORDINALITY AS u(id, ability, input_hash, ord)),
   c AS (
     INSERT INTO trust.claims (id, tenant, run_id, position, text, status, receipt_ids, created_at)
     SELECT x.id, $2, r.id, x.position, x.text, x.status,
            ARRAY(SELECT jsonb_array_elements_text(x.receipt_ids)), $6
       FROM r, jsonb_to_recordset($11::jsonb) AS x(id text, position int, text text, status text, receipt_ids jsonb))
   SELECT id FROM r`,
);

/** Creates a run with one permit per action and the given claims (trust.preflight), in one statement. */
export async function insertRun(
  ctx: Context,
  tenant: string,
  fields: RunFields,
  claims: readonly ClaimInput[],
): Promise<Run> {
  const hashes = actionHashes(fields.actions);
  const now = ctx.now();
  const run = newRun(ctx, tenant, fields, now);
  const claimJson = claimRows(tenant, claims, { runId: run.id }, now).map((c) => ({
    id: c.id,
    position: c.position,
    text: c.text,
    status: c.status,
    receipt_ids: c.receiptIds,
  }));
  await insertRunStatement(
    ctx.pool,
    run.id,
    tenant,
    run.task,
    run.keyId,
    run.requestId,
    run.createdAt,
    run.expiresAt,
    fields.actions.map(() => newId("permit", now)),
    fields.actions.map((a) => a.ability),
    hashes,
    JSON.stringify(claimJson),
  );
  return run;
}

/** The tenant's run, or 404 naming `path` (another tenant's run is as unknown as a missing one). */
export async function runOf(ctx: Context, tenant: string, runId: string, path: string): Promise<Run> {
  const run = await ctx.db.run.findFirst({ where: { id: runId, tenant } });
  if (!run)
    throw new GantryError("not_found", `No run ${runId} exists for this tenant.`, {
      reason: "Send a run id trust.preflight returned to this tenant.",
      details: [{ path, message: "No run of this tenant has this id", code: "run_not_found" }],
    });
  return run;
}

function refuse(r: { code: string; message: string; reason: string }): GantryError {
  return new GantryError("forbidden", r.message, {
    reason: r.reason,
    details: [{ path: "/context/runId", message: r.message, code: r.code }],
  });
}

/**
 * Consumes the permits of a batch of `tenant`'s calls (in its scope, `withTenant`), each exactly
 * once: one result per call, in order, the permit taken or a 404/403 with a detail code naming why
 * not (worked out only then, with more reads: the refused call is the rare one). `done`: the
 * permits were already taken at `now` (in the receipts' statement), these are the rows it took.
 */
export async function consumePermits(
  ctx: Context,
  tenant: string,
  reqs: readonly PermitRequest[],
  done?: { taken: readonly { ord: number | string; id: string }[]; now: number },
): Promise<({ runId: string; permitId: string } | GantryError)[]> {
  const now = done?.now ?? ctx.now();
  const rows = done?.taken ?? (await takePermits(ctx.pool, tenant, ...takeArgs(reqs, now)));
  const taken = new Map(rows.map((r) => [Number(r.ord) - 1, r.id]));
  return Promise.all(
    reqs.map(async (req, i) => {
      const permitId = taken.get(i);
      if (permitId) return { runId: req.run_id, permitId };
      return refusal(ctx, tenant, req, now).catch((err: unknown) => {
        if (err instanceof GantryError) return err;
        throw err;
      });
    }),
  );
}

/** Why a call got no permit, most specific first (always a GantryError, thrown or returned). */
async function refusal(ctx: Context, tenant: string, req: PermitRequest, now: number): Promise<GantryError> {
  const run = await runOf(ctx, tenant, req.run_id, "/context/runId");
  if (run.keyId !== req.key_id)
    return refuse({
      code: "run_other_key",
      message: `Run ${run.id} belongs to another API key.`,
      reason: `Call under this run with the key that created it (${run.keyId}).`,
    });
  if (run.expiresAt.getTime() <= now)
    return refuse({
      code: "run_expired",
      message: `Run ${run.id} expired at ${run.expiresAt.toISOString()}.`,
      reason: "Create a new run with trust.preflight for the actions still to do.",
    });
  const permits = await ctx.db.permit.findMany({
    where: { runId: run.id, tenant, ability: req.ability },
    select: { inputHash: true, status: true },
  });
  if (permits.some((p) => p.inputHash === req.input_hash))
    return refuse({
      code: "permit_used",
      message: `The permit of run ${run.id} for ${req.ability} with this input was already used.`,
      reason: "A permit runs one call; a replay is refused. Create a new run to do it again.",
    });
  if (permits.length)
    return refuse({
      code: "permit_input_mismatch",
      message: `Run ${run.id} permits ${req.ability} only with another input (input hash ${req.input_hash} matches none of its permits).`,
      reason: "Send exactly the input given to trust.preflight (compared by the SHA-256 of its canonical JSON).",
    });
  return refuse({
    code: "permit_missing",
    message: `Run ${run.id} has no permit for ${req.ability}.`,
    reason: "Create a run whose actions include this ability and input.",
  });
}
