/**
 * @module workspace/abilities/workflow.trigger
 * Records a workflow run (`queued`) and publishes its trigger durably on
 * `workflows.<tenant token>.<workflow>.triggered` (stream WORKFLOWS, msgID = run id). When the tenant
 * has an endpoint in WORKFLOW_ENDPOINTS, the deliverer (workflows/deliverer.ts) POSTs the trigger
 * there, signed, with retries; the outcome is recorded on the run. Result `{runId, status, …}`.
 *
 * If the publish fails the run is removed again (with its idempotency record) and the call answers
 * 503, so a retry starts clean. A replay of a run that is still `queued` re-publishes with the same
 * msgID: JetStream drops the duplicate within its window, and the deliverer skips finished runs.
 */
import { GantryError, encodeJson, idempotentCreate, workflowSubject, type CallContext, notFound } from "@gantry/kit";
import { oneOf } from "@gantry/kit";
import type { OutputOf } from "@gantry/proto/catalogue";
import { RUN_STATUSES } from "@gantry/proto/catalogue/workspace.ts";
import { ability, type Context } from "../context.ts";
import { SCHEMA, type WorkflowRun } from "../db.ts";
import { newId } from "../ids.ts";
import type { TriggerMessage } from "../workflows/deliverer.ts";

function result(run: WorkflowRun): OutputOf<"workflow.trigger"> {
  return {
    runId: run.id,
    status: oneOf(RUN_STATUSES, run.status, "workflow run status"),
    workflow: run.workflow,
    subject: run.subject,
    delivery: run.endpointHost ? "webhook" : "subject",
    vertical: run.vertical,
    created: run.createdAt.toISOString(),
  };
}

async function publish(ctx: Context, run: WorkflowRun): Promise<number> {
  const message: TriggerMessage = {
    type: "workflow.triggered",
    id: run.id,
    runId: run.id,
    tenant: run.tenant,
    workflow: run.workflow,
    input: run.input as Record<string, unknown>,
    triggered: run.createdAt.toISOString(),
    keyId: run.keyId,
    requestId: run.requestId,
  };
  const ack = await ctx.nats.js.publish(run.subject, encodeJson(message), {
    msgID: run.id,
    expect: { streamName: "WORKFLOWS" },
  });
  return ack.seq;
}

async function compensate(ctx: Context, call: CallContext, run: WorkflowRun, key: string | undefined): Promise<void> {
  await ctx.db.$transaction([
    ctx.db.workflowRun.deleteMany({ where: { id: run.id, tenant: call.tenant } }),
    ...(key
      ? [
          ctx.db.idempotencyRecord.deleteMany({
            where: { tenant: call.tenant, ability: "workflow.trigger", key, recordId: run.id },
          }),
        ]
      : []),
  ]);
}

export default ability("workflow.trigger", async (input, call, ctx) => {
  const id = newId("workflowRun");
  const now = ctx.now();
  const endpoint = ctx.endpoints.get(call.tenant);
  const { result: run, created } = await idempotentCreate({
    db: ctx.db,
    schema: SCHEMA,
    call,
    ability: "workflow.trigger",
    input,
    recordId: id,
    create: (tx) =>
      tx.workflowRun.create({
        data: {
          id,
          tenant: call.tenant,
          workflow: input.workflow,
          input: (input.input ?? {}) as object,
          status: "queued",
          subject: workflowSubject(call.tenant, input.workflow, "triggered"),
          endpointHost: endpoint?.url.host ?? null,
          keyId: call.keyId || null,
          requestId: call.requestId || null,
          vertical: call.verticalId ?? null,
          createdAt: now,
          updatedAt: now,
        },
      }),
    replay: async (recordId) => {
      const row = await ctx.db.workflowRun.findFirst({ where: { id: recordId, tenant: call.tenant } });
      if (!row) throw notFound("workflow run", recordId);
      return row;
    },
  });
  if (created || (run.status === "queued" && run.sequence === null)) {
    let seq: number;
    try {
      seq = await publish(ctx, run);
    } catch (err) {
      if (created)
        await compensate(ctx, call, run, input.idempotencyKey).catch((e) =>
          ctx.log.error({ runId: run.id, err: String(e) }, "could not remove unpublished run"),
        );
      throw new GantryError(
        "unavailable",
        "The workflow stream is unavailable; the run was not triggered. Retry shortly.",
        { retryAfterMs: 1_000, cause: err },
      );
    }
    await ctx.db.workflowRun.updateMany({
      where: { id: run.id, tenant: call.tenant, sequence: null },
      data: { sequence: BigInt(seq) },
    });
  }
  return result(run);
});
