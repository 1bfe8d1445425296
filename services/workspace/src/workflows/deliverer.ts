/**
 * @module workspace/workflows/deliverer
 * Delivers workflow triggers to tenants' endpoints. It is a durable JetStream consumer
 * (`workspace-workflow-delivery`, filter `workflows.*.*.triggered`) of the service's own trigger
 * messages, so a trigger published before a crash is still delivered after the restart.
 *
 * Per message: the run is read; runs already delivered or failed are acknowledged and skipped (a
 * redelivered or re-published trigger cannot deliver twice from here); a tenant without an
 * endpoint leaves the run `queued` (subscribers of the subject are its consumers). Otherwise the
 * attempt counter is bumped in Postgres, the signed POST is made, and the outcome is recorded:
 * `delivered`, or `failed` after a permanent error or the last attempt, or a retry scheduled with
 * `nak(backoff)` where backoff = WORKFLOW_RETRY_BASE_MS · 2^(attempt−1), capped at
 * WORKFLOW_RETRY_MAX_MS. Final outcomes are published on `workflows.<tenant>.<workflow>.delivered`
 * or `.failed`. The message is acknowledged only after the outcome is committed.
 *
 * Tenancy: the consumer serves every tenant, so its loop runs in system scope (the kit's
 * `startDurableConsumer`, explicit rather than inherited from `init`); each message's database work then runs in the scope of the
 * tenant the trigger names (`withTenant`), so a message can only ever touch that tenant's runs.
 */
import type { JsMsg } from "@nats-io/jetstream";
import {
  STREAMS,
  SsrfGuard,
  decodeJson,
  startDurableConsumer,
  enqueueEvents,
  withTenant,
  workflowSubject,
} from "@gantry/kit";
import type { WorkspaceConfig } from "../config.ts";
import type { Context } from "../context.ts";
import { deliver } from "./deliver.ts";

/** What the deliverer needs of the service's context. */
export type DelivererDeps = Pick<Context, "db" | "config" | "nats" | "log" | "endpoints" | "now" | "outbox">;

export const DELIVERY_DURABLE = "workspace-workflow-delivery";
const CONCURRENCY = 8;

export interface TriggerMessage {
  type: "workflow.triggered";
  id: string;
  runId: string;
  tenant: string;
  workflow: string;
  input: Record<string, unknown>;
  triggered: string;
  keyId: string | null;
  requestId: string | null;
}

export function backoffMs(
  config: Pick<WorkspaceConfig, "WORKFLOW_RETRY_BASE_MS" | "WORKFLOW_RETRY_MAX_MS">,
  attempt: number,
): number {
  return Math.min(config.WORKFLOW_RETRY_MAX_MS, config.WORKFLOW_RETRY_BASE_MS * 2 ** (attempt - 1));
}

/**
 * Records a run's final outcome and queues its `delivered`/`failed` message in the same transaction
 * (the kit's outbox publishes it once committed): the message can neither be lost after the commit
 * nor sent for an outcome that was not recorded.
 */
async function recordOutcome(
  ws: DelivererDeps,
  t: TriggerMessage,
  what: "delivered" | "failed",
  data: Parameters<DelivererDeps["db"]["workflowRun"]["update"]>[0]["data"],
  extra: Record<string, unknown>,
): Promise<void> {
  await ws.db.$transaction(async (tx) => {
    await tx.workflowRun.update({ where: { id: t.runId }, data });
    await enqueueEvents(tx, "workspace", [
      {
        tenant: t.tenant,
        subject: workflowSubject(t.tenant, t.workflow, what),
        msgId: `${t.runId}:${what}`,
        payload: {
          type: `workflow.${what}`,
          runId: t.runId,
          tenant: t.tenant,
          workflow: t.workflow,
          at: ws.now().toISOString(),
          ...extra,
        },
      },
    ]);
  });
  await ws.outbox.flush();
}

/** The deliverer's own state: the deps plus its one SSRF guard. */
type Deliverer = DelivererDeps & { guard: SsrfGuard };

async function handle(ws: Deliverer, m: JsMsg): Promise<void> {
  let t: TriggerMessage;
  try {
    t = decodeJson<TriggerMessage>(m.data);
  } catch {
    ws.log.error({ seq: m.seq, subject: m.subject }, "unreadable workflow trigger dropped");
    m.term();
    return;
  }
  if (typeof t?.tenant !== "string" || !t.tenant || typeof t.runId !== "string") {
    ws.log.error({ seq: m.seq, subject: m.subject }, "workflow trigger without tenant or run id dropped");
    m.term();
    return;
  }
  await withTenant(t.tenant, () => handleRun(ws, m, t));
}

async function handleRun(ws: Deliverer, m: JsMsg, t: TriggerMessage): Promise<void> {
  const run = await ws.db.workflowRun.findFirst({ where: { id: t.runId, tenant: t.tenant } });
  if (!run || run.status === "delivered" || run.status === "failed") return m.ack();
  const endpoint = ws.endpoints.get(run.tenant);
  if (!endpoint) return m.ack();

  const attempt = run.attempts + 1;
  const claimed = await ws.db.workflowRun.updateMany({
    where: { id: run.id, attempts: run.attempts, status: { in: ["queued", "delivering"] } },
    data: { attempts: attempt, status: "delivering", endpointHost: endpoint.url.host, updatedAt: ws.now() },
  });
  if (claimed.count === 0) return m.ack(); // another replica is on this run

  const body = JSON.stringify({
    type: "workflow.triggered",
    runId: run.id,
    tenant: run.tenant,
    workflow: run.workflow,
    input: run.input,
    triggered: run.createdAt.toISOString(),
    attempt,
  });
  const outcome = await deliver({
    url: endpoint.url,
    secret: endpoint.secret,
    body,
    runId: run.id,
    attempt,
    timeoutMs: ws.config.WORKFLOW_DELIVERY_TIMEOUT_MS,
    guard: ws.guard,
  });
  const now = ws.now();
  if (outcome.ok) {
    await recordOutcome(
      ws,
      t,
      "delivered",
      {
        status: "delivered",
        deliveredAt: now,
        lastStatusCode: outcome.statusCode ?? null,
        lastError: null,
        updatedAt: now,
      },
      { attempts: attempt, statusCode: outcome.statusCode },
    );
    return m.ack();
  }
  const last = outcome.permanent || attempt >= ws.config.WORKFLOW_DELIVERY_ATTEMPTS;
  const failedData = {
    status: last ? "failed" : "delivering",
    lastStatusCode: outcome.statusCode ?? null,
    lastError: (outcome.error ?? "delivery failed").slice(0, 500),
    updatedAt: now,
  };
  if (last) {
    ws.log.warn(
      { runId: run.id, tenant: run.tenant, attempts: attempt, err: outcome.error },
      "workflow delivery failed",
    );
    await recordOutcome(ws, t, "failed", failedData, {
      attempts: attempt,
      statusCode: outcome.statusCode ?? null,
      error: outcome.error,
    });
    return m.ack();
  }
  await ws.db.workflowRun.update({ where: { id: run.id }, data: failedData });
  m.nak(backoffMs(ws.config, attempt));
}

export function startWorkflowDeliverer(deps: DelivererDeps): { stop: () => Promise<void> } {
  // The kit's SSRF guard; WORKFLOW_ALLOW_LOOPBACK is its test-only escape hatch (logged on every use).
  const ws: Deliverer = {
    ...deps,
    guard: new SsrfGuard({ allowLoopback: deps.config.WORKFLOW_ALLOW_LOOPBACK, log: deps.log }),
  };
  // Long enough for one attempt plus its bookkeeping; also how soon a trigger whose worker died
  // mid-attempt (crash, kill) is redelivered.
  const ackWaitNs = (2 * ws.config.WORKFLOW_DELIVERY_TIMEOUT_MS + 5_000) * 1e6;
  return startDurableConsumer({
    nats: ws.nats,
    stream: STREAMS.WORKFLOWS.name,
    consumer: {
      durable_name: DELIVERY_DURABLE,
      ack_wait: ackWaitNs,
      filter_subject: "workflows.*.*.triggered",
      max_ack_pending: 1_000,
    },
    // Exists from an earlier start: its ack wait follows the current timeout.
    update: { ack_wait: ackWaitNs },
    concurrency: CONCURRENCY,
    handle: (m) => handle(ws, m),
    failed: (err, m) => {
      ws.log.error({ err: String(err), seq: m.seq }, "workflow delivery step failed; retrying later");
      m.nak(1_000);
    },
    log: ws.log,
    what: "workflow delivery consumer",
  });
}
