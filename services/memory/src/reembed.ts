/**
 * @module memory/reembed
 * Re-embeds memory collections with the configured embedding model: the documented way to change
 * models (the service refuses to mix models in one collection, 409).
 *
 * Usage (same environment as the memory service: DATABASE_URL, NATS_URL, MEMORY_STORE, EMBEDDER,
 * EMBEDDING_* …):
 *
 *     npm run reembed -w @gantry/memory -- --tenant acme --collection clinic-notes
 *     npm run reembed -w @gantry/memory -- --tenant acme            # every collection of the tenant
 *     npm run reembed -w @gantry/memory -- --all                    # every collection of every tenant
 *     options: --dry-run (list what would change)  --force (re-embed even when the model matches)
 *              --batch N (texts per embedding request, default 64)
 *
 * Each collection is embedded in full first, then its vectors and model are replaced in one
 * transaction (Postgres store), so searches see the old model or the new one, never a mix; running
 * replicas are told through a partition notice and reload. Memories keep their ids, text, metadata
 * and timestamps (recency is unchanged). Memories saved into the collection while it runs (still with
 * the old model) make the final step refuse; run the command again. Exit code 0 on success.
 */
import { parseArgs } from "node:util";
import {
  BASE_ENV,
  TenantPool,
  asSystem,
  connectNats,
  createLogger,
  defineEnv,
  loadConfig,
  type Nats,
} from "@gantry/kit";
import { MEMORY_ENV } from "./config.ts";
import { loadEmbedder } from "./embed/index.ts";
import { createStore } from "./store/index.ts";

const { values } = parseArgs({
  options: {
    tenant: { type: "string" },
    collection: { type: "string" },
    all: { type: "boolean", default: false },
    "dry-run": { type: "boolean", default: false },
    force: { type: "boolean", default: false },
    batch: { type: "string", default: "64" },
  },
});

function fail(message: string): never {
  process.stderr.write(`reembed: ${message}\n`);
  process.exit(2);
}

if (!values.all && !values.tenant) fail("name a tenant (--tenant acme [--collection notes]) or pass --all");
if (values.all && (values.tenant || values.collection)) fail("--all cannot be combined with --tenant or --collection");
const batch = Number(values.batch);
if (!Number.isInteger(batch) || batch < 1 || batch > 2048) fail("--batch must be an integer 1..2048");

const REEMBED_ENV = defineEnv({
  ...BASE_ENV,
  ...MEMORY_ENV,
  DATABASE_URL: { ...BASE_ENV.DATABASE_URL, required: true },
});
const config = loadConfig("memory reembed", REEMBED_ENV);
const log = createLogger("memory-reembed", config.LOG_LEVEL === "info" ? "warn" : config.LOG_LEVEL);
// The kit's pool, so the system scope below reaches every connection: the tables are under
// row-level security (forced for their owner too), and a connection outside any scope sees no rows.
const pool = new TenantPool({ connectionString: config.DATABASE_URL, max: 4 });
pool.on("error", (err) => log.warn({ err: err.message }, "postgres pool error"));
const nats: Nats | undefined = await Promise.race([
  connectNats(config.NATS_URL, "memory-reembed", log),
  new Promise<never>((_, r) => setTimeout(() => r(new Error("timeout")), 5_000)),
]).catch((err) => {
  process.stderr.write(
    `reembed: NATS unreachable (${String(err)}); replicas will notice the change at their next version check\n`,
  );
  return undefined;
});
const store = await createStore(config, { pool, nats, log });
// No fallback: re-embedding with lexical-hash-v1 because the sentence model failed to load would
// silently downgrade every collection it touches.
const embedder = await loadEmbedder(config, { log, fallback: false }).catch((err) =>
  fail(
    `the embedder (EMBEDDER=${config.EMBEDDER}) could not start: ${err instanceof Error ? err.message : String(err)}`,
  ),
);
// Re-embedding spans tenants (--all) and runs outside any call: system scope.
const code = await asSystem(() => reembed()).then(
  () => 0,
  (err) => {
    process.stderr.write(`reembed: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  },
);
await store.close().catch(() => {});
await embedder.close?.().catch(() => {});
await nats?.nc.drain().catch(() => {});
await pool.end().catch(() => {});
process.exit(code);

async function reembed(): Promise<void> {
  await store.start();
  const partitions = (await store.partitions(values.tenant)).filter(
    (p) => values.collection === undefined || p.collection === values.collection,
  );
  if (partitions.length === 0) process.stdout.write("nothing to re-embed: no matching collection holds memories\n");
  for (const p of partitions) {
    const label = `${p.tenant}/${p.collection} (${p.count} memories, ${p.model})`;
    if (p.model === embedder.model && p.dimensions === embedder.dimensions && !values.force) {
      process.stdout.write(`skip ${label}: already ${embedder.model}\n`);
      continue;
    }
    if (values["dry-run"]) {
      process.stdout.write(`would re-embed ${label} with ${embedder.model}\n`);
      continue;
    }
    const started = Date.now();
    const vectors = new Map<string, Float32Array>();
    for await (const memories of store.scan(p.tenant, p.collection, batch)) {
      const embedded = await embedder.embed(
        memories.map((m) => m.text),
        "document",
      );
      memories.forEach((m, i) => {
        vectors.set(m.id, embedded[i]);
      });
    }
    await store.replaceVectors(p.tenant, p.collection, embedder.model, embedder.dimensions, vectors);
    process.stdout.write(
      `re-embedded ${label} with ${embedder.model} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
    );
  }
}
