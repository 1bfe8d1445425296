/**
 * @module memory/service
 * The memory service: semantic memory (memory.save/search/recall/forget) over a vector store
 * (Postgres by default, Weaviate with MEMORY_STORE=weaviate), the decision log (decision.record,
 * decision.list), the lessons inbox (lesson.record, events on stream LESSONS) and its consolidation
 * (lessons.ts: the durable consumer of LESSONS and the `gantry.memory.v1.Lessons` read). See README.md.
 *
 * `init` builds the handlers' context (context.ts); the handlers are `abilities/<id>.ts`, found by
 * the kit. `init` runs in system scope, and so does what it starts: the outbox relay, the lessons
 * consumer and the Postgres store's partition notices and version checks, which serve every tenant.
 */
import {
  STREAMS,
  createClock,
  defineService,
  ensureStream,
  prismaClient,
  startOutboxRelay,
  type Logger,
} from "@gantry/kit";
import { MEMORY_ENV } from "./config.ts";
import type { Context } from "./context.ts";
import { PrismaClient } from "./db.ts";
import { loadEmbedder } from "./embed/index.ts";
import type { Embedder } from "./embed/types.ts";
import { lessonsService, startLessonConsumer } from "./lessons.ts";
import { createStore, type VectorStore } from "./store/index.ts";

export default defineService({
  name: "memory",
  env: MEMORY_ENV,
  init: async (deps): Promise<Context> => {
    if (!deps.pool) throw new Error("memory service started without a database (DATABASE_URL)");
    const embedder = await loadEmbedder(deps.config, { log: deps.log });
    const store = await createStore(deps.config, { pool: deps.pool, nats: deps.nats, log: deps.log });
    await store.start();
    warnOtherModels(store, embedder, deps.log);
    const maxAge = deps.config.LESSONS_MAX_AGE_DAYS * 86_400 * 1e9;
    await ensureStream(deps.nats.jsm, { ...STREAMS.LESSONS, subjects: [...STREAMS.LESSONS.subjects], max_age: maxAge });
    deps.log.info(
      {
        store: store.name,
        embedder: embedder.model,
        matching: embedder.matching,
        halfLifeDays: deps.config.MEMORY_HALF_LIFE_DAYS,
      },
      "memory ready",
    );
    const ctx: Context = {
      config: deps.config,
      log: deps.log,
      db: prismaClient(deps, PrismaClient),
      pool: deps.pool,
      nats: deps.nats,
      store,
      embedder,
      outbox: startOutboxRelay({ pool: deps.pool, schema: "memory", nats: deps.nats, log: deps.log }),
      now: createClock(),
      lessons: { stop: async () => {} },
    };
    ctx.lessons = startLessonConsumer(ctx);
    return ctx;
  },
  grpcServices: (ctx) => [lessonsService(ctx)],
  close: async (ctx) => {
    await ctx.lessons.stop();
    await ctx.outbox.stop();
    await ctx.store.close();
    await ctx.embedder.close?.();
    await ctx.db.$disconnect();
  },
});

/**
 * Says at start which collections hold vectors of another model (e.g. lexical-hash-v1 from before
 * the default became use-lite-512-v1): searching or saving them answers 409 until they are
 * re-embedded. In the background, so that a large deployment does not delay readiness.
 */
function warnOtherModels(store: VectorStore, embedder: Embedder, log: Logger): void {
  store
    .partitions()
    .then((parts) => {
      const other = parts.filter((p) => p.model !== embedder.model || p.dimensions !== embedder.dimensions);
      if (other.length === 0) return;
      const models = [...new Set(other.map((p) => p.model))].join(", ");
      log.warn(
        { collections: other.length, models, embedder: embedder.model },
        `${other.length} memory collections hold vectors of ${models}, not ${embedder.model}: memory.search, memory.recall and memory.save on them answer 409 until re-embedded (npm run reembed -w @gantry/memory -- --all) or until EMBEDDER names their model again`,
      );
    })
    .catch((err) => log.warn({ err: String(err) }, "could not list memory collections to check their models"));
}
