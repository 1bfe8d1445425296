/**
 * @module memory/main
 * The memory service: semantic memory (memory.save/search/recall/forget) over a vector store
 * (Postgres by default, Weaviate with MEMORY_STORE=weaviate), the decision log (decision.record,
 * decision.list) and the lessons inbox (lesson.record, events on stream LESSONS). See README.md.
 */
import { STREAMS, createClock, ensureStream, main } from "@gantry/kit";
import { MEMORY_ENV, type MemoryConfig } from "./config.ts";
import type { MemoryDeps } from "./context.ts";
import { createDb } from "./db.ts";
import { createEmbedder } from "./embed/index.ts";
import { startOutbox } from "./outbox.ts";
import { createStore } from "./store/index.ts";
import { memorySave } from "./abilities/memory.save.ts";
import { memorySearch } from "./abilities/memory.search.ts";
import { memoryRecall } from "./abilities/memory.recall.ts";
import { memoryForget } from "./abilities/memory.forget.ts";
import { decisionRecord } from "./abilities/decision.record.ts";
import { decisionList } from "./abilities/decision.list.ts";
import { lessonRecord } from "./abilities/lesson.record.ts";

let m: MemoryDeps | undefined;

main<MemoryConfig>({
  name: "memory",
  env: MEMORY_ENV,
  init: async (deps) => {
    const embedder = createEmbedder(deps.config);
    const store = createStore(deps.config, { pool: deps.pool!, nats: deps.nats, log: deps.log });
    await store.start();
    await ensureStream(deps.nats.jsm, { ...STREAMS.LESSONS, subjects: [...STREAMS.LESSONS.subjects], max_age: deps.config.LESSONS_MAX_AGE_DAYS * 86_400 * 1e9 });
    m = {
      config: deps.config,
      log: deps.log,
      db: createDb(deps),
      pool: deps.pool!,
      nats: deps.nats,
      store,
      embedder,
      outbox: startOutbox(deps.pool!, deps.nats, deps.log),
      now: createClock(),
    };
    deps.log.info({ store: store.name, embedder: embedder.model, halfLifeDays: deps.config.MEMORY_HALF_LIFE_DAYS }, "memory ready");
  },
  abilities: () => ({
    "memory.save": (input, call) => memorySave(input, call, m!),
    "memory.search": (input, call) => memorySearch(input, call, m!),
    "memory.recall": (input, call) => memoryRecall(input, call, m!),
    "memory.forget": (input, call) => memoryForget(input, call, m!),
    "decision.record": (input, call) => decisionRecord(input, call, m!),
    "decision.list": (input, call) => decisionList(input, call, m!),
    "lesson.record": (input, call) => lessonRecord(input, call, m!),
  }),
  close: async () => {
    await m?.outbox.stop();
    await m?.store.close();
    await m?.db.$disconnect();
  },
});
