/**
 * @module memory/service
 * The memory service: semantic memory (memory.save/search/recall/forget) over a vector store
 * (Postgres by default, Weaviate with MEMORY_STORE=weaviate), the decision log (decision.record,
 * decision.list) and the lessons inbox (lesson.record, events on stream LESSONS). See README.md.
 *
 * `init` builds the handlers' context (context.ts); the handlers are `abilities/<id>.ts`, found by
 * the kit. `init` runs in system scope, and so does what it starts: the outbox relay and the
 * Postgres store's partition notices and version checks, which serve every tenant.
 */
import { STREAMS, createClock, defineService, ensureStream, prismaClient } from "@gantry/kit";
import { MEMORY_ENV } from "./config.ts";
import type { Context } from "./context.ts";
import { PrismaClient } from "./db.ts";
import { createEmbedder } from "./embed/index.ts";
import { startOutbox } from "./outbox.ts";
import { createStore } from "./store/index.ts";

export default defineService({
  name: "memory",
  env: MEMORY_ENV,
  init: async (deps): Promise<Context> => {
    if (!deps.pool) throw new Error("memory service started without a database (DATABASE_URL)");
    const embedder = createEmbedder(deps.config);
    const store = createStore(deps.config, { pool: deps.pool, nats: deps.nats, log: deps.log });
    await store.start();
    const maxAge = deps.config.LESSONS_MAX_AGE_DAYS * 86_400 * 1e9;
    await ensureStream(deps.nats.jsm, { ...STREAMS.LESSONS, subjects: [...STREAMS.LESSONS.subjects], max_age: maxAge });
    deps.log.info(
      { store: store.name, embedder: embedder.model, halfLifeDays: deps.config.MEMORY_HALF_LIFE_DAYS },
      "memory ready",
    );
    return {
      config: deps.config,
      log: deps.log,
      db: prismaClient(deps, PrismaClient),
      pool: deps.pool,
      nats: deps.nats,
      store,
      embedder,
      outbox: startOutbox(deps.pool, deps.nats, deps.log),
      now: createClock(),
    };
  },
  close: async (ctx) => {
    await ctx.outbox.stop();
    await ctx.store.close();
    await ctx.db.$disconnect();
  },
});
