/**
 * What integration.search's re-ranking by the sentence model (src/tool-meaning.ts) costs, in this
 * process (no stack needed): on the labelled sets' directory toolkit nearest 100 tools, the first
 * search with the model not yet started (child process start and model load), then p50/p99 of a
 * search with a cold tool cache (a fresh cache per search, the model loaded: the query and up to 30
 * tools embedded) and a warm one (the query alone), over the labelled and held-out queries, without a
 * budget (the wait a search would have without one); and the RSS of this process before and after,
 * and of the model's child. Run with --expose-gc so this process's RSS is after collection:
 *
 *   node --expose-gc services/connections/scripts/bench-tool-meaning.ts [--cold 8] [--warm 40]
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { SentenceModel } from "@gantry/kit/sentence-model.ts";
import { ensureDirectory } from "./build-directory.ts";
import { Directory } from "../src/directory.ts";
import { labelledQueries } from "../src/directory-queries.ts";
import { rankConnectionTools, ToolMeaning } from "../src/tool-meaning.ts";
import { mib, percentile, rss } from "./bench-measure.ts";

const { values } = parseArgs({
  options: { cold: { type: "string", default: "8" }, warm: { type: "string", default: "40" } },
});
/** The model's child process: the one whose parent is this process, named on its command line. */
function childRss(name: string): number {
  for (const pid of readFileSync(`/proc/self/task/${process.pid}/children`, "utf8").trim().split(/\s+/)) {
    if (!pid) continue;
    const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    if (!cmd.includes(`--idle-worker=${name}`)) continue;
    const line = readFileSync(`/proc/${pid}/status`, "utf8")
      .split("\n")
      .find((l) => l.startsWith("VmRSS:"));
    return Number(line?.split(/\s+/)[1]) * 1024;
  }
  return 0;
}

const directory = new Directory(ensureDirectory());
// The directory toolkit nearest 100 tools among those the labelled sets query.
const queries = [...labelledQueries(), ...labelledQueries("held-out")];
const sizes = [...new Set(queries.map((q) => q.toolkit))].map((slug) => ({
  slug,
  n: directory.toolkit(slug)?.latest.size ?? 0,
}));
const { slug, n } = sizes.sort((a, b) => Math.abs(a.n - 100) - Math.abs(b.n - 100))[0] as { slug: string; n: number };
const tools = [...(directory.toolkit(slug)?.latest.values() ?? [])];
const asked = queries.map((q) => q.query);
const search = (meaning: ToolMeaning, query: string) =>
  rankConnectionTools({ toolkit: slug, query, tools, directory, meaning, warn: console.warn });

// Words and term vectors first (their files read, the shard parsed), so the figures below are the model's alone.
for (const query of asked)
  await rankConnectionTools({ toolkit: slug, query, tools, directory, meaning: null, warn: console.warn });
const before = rss();
const name = "connections-tool-meaning";
const model = new SentenceModel({ isolation: "process", name });
let t = performance.now();
const meaning = new ToolMeaning({ model, budgetMs: Number.POSITIVE_INFINITY });
await search(meaning, asked[0] as string);
const firstMs = performance.now() - t;
const cold: number[] = [];
for (let i = 0; i < Number(values.cold); i++) {
  const fresh = new ToolMeaning({ model, budgetMs: Number.POSITIVE_INFINITY });
  t = performance.now();
  await search(fresh, asked[i % asked.length] as string);
  cold.push(performance.now() - t);
}
const warm: number[] = [];
for (let i = 0; i < Number(values.warm); i++) {
  t = performance.now();
  await search(meaning, asked[(i * 7) % asked.length] as string);
  warm.push(performance.now() - t);
}
const after = rss();
const child = childRss(name);
console.log(`integration.search re-ranked by the sentence model, on ${slug} (${n} tools)`);
console.log(`  first search, model not started: ${firstMs.toFixed(0)} ms`);
console.log(
  `  cold tool cache (${cold.length}): p50 ${percentile(cold, 0.5).toFixed(0)} ms, p99 ${percentile(cold, 0.99).toFixed(0)} ms`,
);
console.log(
  `  warm (${warm.length}): p50 ${percentile(warm, 0.5).toFixed(1)} ms, p99 ${percentile(warm, 0.99).toFixed(1)} ms`,
);
console.log(
  `  this process's RSS: ${mib(before)} before, ${mib(after)} after (+${mib(after - before)}); the model's child: ${mib(child)}`,
);
await meaning.close();
