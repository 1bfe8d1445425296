/**
 * @module memory/lessons
 * The consolidation pipeline behind the lessons inbox (spec §4.3 lesson.record): a durable JetStream
 * consumer of stream `LESSONS` that merges the lessons of one tenant by meaning into consolidated
 * lessons, and the `gantry.memory.v1.Lessons` RPC other services read them through.
 *
 * A lesson is embedded (title + lesson) with the service's embedder, the one memory.save and
 * memory.search use, and compared with the tenant's consolidated lessons: at a cosine of
 * `LESSONS_MERGE_THRESHOLD` or more it joins the nearest one (count + 1, highest severity, union of
 * triggers and tags, first/last seen widened), else it starts one of its own.
 *
 * Every replica runs the consumer; they share the durable, so each event goes to one of them, and a
 * redelivery (a crash before the ack, an ack lost) may go to another. So: the lesson id is the key of
 * `consolidated_lesson_sources`, checked and written in the merge's transaction (a redelivered event
 * counts nothing), and merges of one tenant are serialised by a transaction-scoped advisory lock on
 * the tenant (two replicas merging paraphrases at once would otherwise each miss the other's new row,
 * or both rewrite one row from the same count). The ack follows the commit.
 */
import type { JsMsg } from "@nats-io/jetstream";
import type * as grpc from "@grpc/grpc-js";
import {
  GantryError,
  STREAMS,
  startDurableConsumer,
  decodeJson,
  lookupService,
  randomBase62,
  toGrpcError,
  translateDbError,
  withTenant,
} from "@gantry/kit";
import type { ConsolidatedLessonWire, ListConsolidatedRequest } from "@gantry/kit/lessons-reader.ts";
import { TENANT_PATTERN } from "@gantry/proto/catalogue/schema.ts";
import { MEMORY_LESSONS_PROTO } from "@gantry/proto/paths";
import type { LessonRecordedEvent } from "./abilities/lesson.record.ts";
import type { Context } from "./context.ts";
import type { ConsolidatedLesson } from "./db.ts";
import { bytesToVector, dot, vectorToBytes } from "./embed/types.ts";

/** The durable consumer every replica shares (stream LESSONS). */
export const LESSONS_DURABLE = "memory-lessons-consolidator";

const SEVERITIES = ["low", "medium", "high", "critical"] as const;
type Severity = (typeof SEVERITIES)[number];

/** Rank of a severity (none: -1), so the higher of two is kept. */
function rank(severity: string | null): number {
  return SEVERITIES.indexOf(severity as Severity);
}

/** Triggers and tags are kept once each, however they were cased or spaced. */
function union(a: readonly string[], b: readonly string[], max = 100): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of [...a, ...b]) {
    const t = raw.trim();
    const key = t.toLowerCase();
    if (!t || seen.has(key)) continue;
    seen.add(key);
    out.push(t);
  }
  return out.slice(0, max);
}

/** The text a lesson is compared by. */
function lessonText(l: { title: string; lesson: string }): string {
  return `${l.title}\n${l.lesson}`;
}

/** Why an event cannot be consolidated; undefined when it can. */
function unreadable(e: Partial<LessonRecordedEvent>): string | undefined {
  for (const field of ["id", "tenant", "title", "category", "lesson", "recorded"] as const)
    if (typeof e[field] !== "string" || !e[field]) return `no ${field}`;
  if (Number.isNaN(Date.parse(e.recorded as string))) return "recorded is not a time";
  return undefined;
}

export type Consolidation = { outcome: "created" | "merged"; consolidatedId: string } | { outcome: "duplicate" };

/**
 * Counts one inbox lesson into its tenant's consolidated lessons; `duplicate` when it was counted
 * already (a redelivery). Runs in the lesson's tenant scope.
 */
export async function consolidate(ctx: Context, event: LessonRecordedEvent): Promise<Consolidation> {
  const tenant = event.tenant;
  // Embedded before the lock: the model's work is the slow part and needs nothing locked.
  const [vector] = await ctx.embedder.embed([lessonText(event)], "document");
  const seen = new Date(event.recorded);
  return withTenant(tenant, () =>
    ctx.db.$transaction(
      async (tx): Promise<Consolidation> => {
        // On the transaction's own connection, released by its commit or rollback (also when the
        // process dies): one connection per merge, however many wait for the tenant.
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`memory.lessons:${tenant}`}, 0))`;
        const counted = await tx.consolidatedLessonSource.findFirst({ where: { tenant, lessonId: event.id } });
        if (counted) return { outcome: "duplicate" };
        const rows = await tx.consolidatedLesson.findMany({ where: { tenant } });
        await reembedStale(ctx, rows, (r) =>
          tx.consolidatedLesson.update({
            where: { tenant_id: { tenant, id: r.id } },
            data: { vector: r.vector, model: r.model, dimensions: r.dimensions },
          }),
        );
        let best: ConsolidatedLesson | undefined;
        let bestSimilarity = -1;
        for (const r of rows) {
          const similarity = dot(vector, bytesToVector(r.vector));
          if (similarity > bestSimilarity) [best, bestSimilarity] = [r, similarity];
        }
        let consolidatedId: string;
        let outcome: "created" | "merged";
        if (best && bestSimilarity >= ctx.config.LESSONS_MERGE_THRESHOLD) {
          outcome = "merged";
          consolidatedId = best.id;
          await tx.consolidatedLesson.update({
            where: { tenant_id: { tenant, id: best.id } },
            data: {
              count: { increment: 1 },
              severity: rank(event.severity) > rank(best.severity) ? event.severity : best.severity,
              triggers: union(best.triggers, event.triggers ?? []),
              tags: union(best.tags, event.tags ?? []),
              fix: best.fix ?? event.fix,
              firstSeen: seen < best.firstSeen ? seen : best.firstSeen,
              lastSeen: seen > best.lastSeen ? seen : best.lastSeen,
              updatedAt: new Date(ctx.now()),
            },
          });
        } else {
          outcome = "created";
          consolidatedId = `lcn_${randomBase62(22)}`;
          await tx.consolidatedLesson.create({
            data: {
              tenant,
              id: consolidatedId,
              title: event.title,
              category: event.category,
              lesson: event.lesson,
              fix: event.fix,
              severity: event.severity,
              triggers: union([], event.triggers ?? []),
              tags: union([], event.tags ?? []),
              count: 1,
              firstSeen: seen,
              lastSeen: seen,
              vector: vectorToBytes(vector),
              model: ctx.embedder.model,
              dimensions: ctx.embedder.dimensions,
              updatedAt: new Date(ctx.now()),
            },
          });
        }
        await tx.consolidatedLessonSource.create({ data: { tenant, lessonId: event.id, consolidatedId } });
        return { outcome, consolidatedId };
      },
      // Waiting for the tenant's lock counts against the timeout: generous, merges take milliseconds.
      { maxWait: 10_000, timeout: 30_000 },
    ),
  );
}

/** Lessons embedded by another model than the configured one are re-embedded (and stored), never compared across models. */
async function reembedStale(
  ctx: Context,
  rows: ConsolidatedLesson[],
  store: (r: ConsolidatedLesson) => Promise<unknown>,
): Promise<void> {
  const stale = rows.filter((r) => r.model !== ctx.embedder.model || r.dimensions !== ctx.embedder.dimensions);
  if (!stale.length) return;
  const vectors = await ctx.embedder.embed(stale.map(lessonText), "document");
  for (const [i, r] of stale.entries()) {
    r.vector = vectorToBytes(vectors[i]);
    r.model = ctx.embedder.model;
    r.dimensions = ctx.embedder.dimensions;
    await store(r);
  }
}

async function handle(ctx: Context, m: JsMsg): Promise<void> {
  let event: LessonRecordedEvent;
  try {
    event = decodeJson<LessonRecordedEvent>(m.data);
  } catch {
    event = {} as LessonRecordedEvent;
  }
  const why = unreadable(event);
  if (why) {
    // Retrying cannot make it readable; the inbox row (if any) is still there to replay by hand.
    ctx.log.error({ seq: m.seq, why, lessonId: event.id }, "unreadable memory.lesson.recorded event terminated");
    m.term();
    return;
  }
  const done = await consolidate(ctx, event);
  m.ack();
  ctx.log.debug({ lessonId: event.id, tenant: event.tenant, ...done }, "lesson consolidated");
}

/**
 * Starts this replica's share of the durable consumer. Lessons are few and each merge holds its
 * tenant's lock, so one message at a time per replica; replicas add throughput.
 */
export function startLessonConsumer(ctx: Context): { stop: () => Promise<void> } {
  return startDurableConsumer({
    nats: ctx.nats,
    stream: STREAMS.LESSONS.name,
    consumer: {
      durable_name: LESSONS_DURABLE,
      // Long enough for a cold model load (≈ 0.4 s) plus the merge; also how soon an event whose
      // replica died mid-merge goes to another.
      ack_wait: 60e9,
      filter_subject: STREAMS.LESSONS.subjects[0],
      max_ack_pending: 1_000,
    },
    maxMessages: 8,
    handle: (m) => handle(ctx, m),
    failed: (err, m) => {
      ctx.log.warn({ err: String(err), seq: m.seq }, "lesson consolidation failed; redelivered later");
      m.nak(2_000);
    },
    log: ctx.log,
    what: "lessons consumer",
  });
}

const TENANT_RE = new RegExp(TENANT_PATTERN);

/** The public shape of a consolidated lesson, as the RPC answers it. */
function wire(r: ConsolidatedLesson, similarity: number, matched: string[]): ConsolidatedLessonWire {
  return {
    id: r.id,
    title: r.title,
    category: r.category,
    lesson: r.lesson,
    fix: r.fix ?? "",
    severity: r.severity ?? "",
    triggers: r.triggers,
    tags: r.tags,
    count: r.count,
    first_seen: r.firstSeen.toISOString(),
    last_seen: r.lastSeen.toISOString(),
    similarity: Math.round(similarity * 1e6) / 1e6,
    matched_triggers: matched,
  };
}

/** The triggers named in `query` (as words: `deploy` is not named by `redeployment`). */
function namedTriggers(triggers: readonly string[], query: string): string[] {
  const words = ` ${query.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ")} `;
  return triggers.filter((t) => {
    const w = t
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, " ")
      .trim();
    return w !== "" && words.includes(` ${w} `);
  });
}

/** A tenant's consolidated lessons; see proto/gantry/memory/v1/lessons.proto. Runs in the tenant's scope. */
export async function listConsolidated(ctx: Context, req: ListConsolidatedRequest): Promise<ConsolidatedLessonWire[]> {
  const tenant = req.tenant;
  const min = req.min_severity ? rank(req.min_severity) : -1;
  const limit = Math.min(req.limit || 20, 100);
  const severities = SEVERITIES.filter((s) => rank(s) >= min);
  const rows = await ctx.db.consolidatedLesson.findMany({
    where: { tenant, ...(min >= 0 ? { severity: { in: [...severities] } } : {}) },
    orderBy: [{ count: "desc" }, { lastSeen: "desc" }, { id: "asc" }],
  });
  const query = req.query;
  if (!query) return rows.slice(0, limit).map((r) => wire(r, 0, []));
  await reembedStale(ctx, rows, (r) =>
    ctx.db.consolidatedLesson.update({
      where: { tenant_id: { tenant, id: r.id } },
      data: { vector: r.vector, model: r.model, dimensions: r.dimensions },
    }),
  );
  const [q] = await ctx.embedder.embed([query], "query");
  return rows
    .map((r) => ({ r, similarity: dot(q, bytesToVector(r.vector)), matched: namedTriggers(r.triggers, query) }))
    .filter((x) => x.matched.length > 0 || x.similarity >= ctx.config.LESSONS_RELEVANCE_THRESHOLD)
    .sort((a, b) => b.matched.length - a.matched.length || b.similarity - a.similarity || b.r.count - a.r.count)
    .slice(0, limit)
    .map((x) => wire(x.r, x.similarity, x.matched));
}

/** The `gantry.memory.v1.Lessons` service (typed internal RPC: trust and content call it, the gateway cannot). */
export function lessonsService(ctx: Context) {
  const Service = lookupService(MEMORY_LESSONS_PROTO, "gantry.memory.v1.Lessons");
  const impl: grpc.UntypedServiceImplementation = {
    ListConsolidated: (
      call: grpc.ServerUnaryCall<ListConsolidatedRequest, { lessons: ConsolidatedLessonWire[] }>,
      callback: grpc.sendUnaryData<{ lessons: ConsolidatedLessonWire[] }>,
    ) => {
      const req = call.request;
      const run = async () => {
        if (!req.tenant || req.tenant.length > 128 || !TENANT_RE.test(req.tenant))
          throw new GantryError("invalid_request", "tenant must be a tenant id (e.g. acme, acme/shop1)");
        if (req.min_severity && rank(req.min_severity) < 0)
          throw new GantryError("invalid_request", `min_severity must be one of ${SEVERITIES.join(", ")}`);
        if ((req.query ?? "").length > 20_000)
          throw new GantryError("invalid_request", "query must be at most 20000 characters");
        return withTenant(req.tenant, () => listConsolidated(ctx, req));
      };
      run().then(
        (lessons) => callback(null, { lessons }),
        (thrown) => {
          const err = translateDbError(thrown) ?? thrown;
          const gerr = err instanceof GantryError ? err : null;
          if (!gerr || gerr.httpStatus >= 500)
            ctx.log.error(
              { tenant: req.tenant, requestId: req.request_id, err: String(gerr?.cause ?? err) },
              "ListConsolidated failed",
            );
          callback(toGrpcError(err) as grpc.ServiceError);
        },
      );
    },
  };
  return { service: Service.service, impl };
}
