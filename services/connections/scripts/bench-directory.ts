/**
 * What the directory toolkits cost the connections service, in this process (no stack needed):
 * start-up (what init does with CONNECTIONS_DIRECTORY=on: name the folder, check it exists), RSS
 * idle and after the first use (index read, the labelled queries searched, three large toolkits'
 * shards read), the first search by meaning (the vectors' codes and term table read), the latency of
 * a whole-catalogue search (tools + toolkits) over the labelled set src/directory-queries.json,
 * lexical (BM25) and fused with meaning, p50 and p99 over `--rounds` rounds, and recall@5 of both.
 * No model runs at query time (src/directory-vectors.ts `embedQuery`), so this process's RSS is all
 * a search costs. Run with the services' Node options (infra/runner/stack.ts `NODE_PROCESS_ARGS`, as
 * npm run bench does) so the RSS figures are the service's, after collection:
 *
 *   node --expose-gc --max-semi-space-size=16 --import=./kit/src/idle-memory.ts services/connections/scripts/bench-directory.ts [--rounds 20]
 */
import { existsSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import "../src/service.ts";
import { Directory } from "../src/directory.ts";
import { directoryRecall, labelledQueries } from "../src/directory-queries.ts";
import { defaultArtifactDir } from "../src/directory-format.ts";
import { vectorsDir } from "../src/directory-vectors.ts";
import { mib, percentile, rss } from "./bench-measure.ts";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "20" } } });
const rounds = Number(values.rounds);

const dir = defaultArtifactDir();
if (!existsSync(join(dir, "index.json.gz")) || !existsSync(join(vectorsDir(dir), "vectors.json"))) {
  console.error(
    `no directory or vectors at ${dir}: node services/connections/scripts/build-directory.ts --ensure && node services/connections/scripts/build-directory-vectors.ts --ensure`,
  );
  process.exit(1);
}
const labelled = labelledQueries();

// Both ends measured quiet too: the idle collection also gives back what start-up grew, which
// would otherwise count against the directory.
const quietly = async () => {
  await new Promise((resolve) => setTimeout(resolve, 4000));
  return rss();
};
const quietBefore = await quietly();
const before = rss();
let started = performance.now();
const directory = new Directory(dir);
directory.has("twilio-com-api");
const startMs = performance.now() - started;
const idle = rss();
started = performance.now();
directory.counts();
const indexMs = performance.now() - started;
started = performance.now();
const first = directory.rankTools(labelled[0]?.query ?? "send an sms", 5);
const firstMs = performance.now() - started;
if (first.ranking !== "fused") throw new Error(`ranking is ${first.ranking}: ${first.warning}`);
const recall = directoryRecall(directory, labelled);
for (const slug of ["stripe-com", "github-com-api-github-com", "twilio-com-api"]) directory.toolkit(slug);
const used = rss();
// A service between bursts: quiet for a few seconds, when kit/src/idle-memory.ts (preloaded by
// npm run bench, as in every service) gives back what the burst grew; nothing without it.
const quiet = await quietly();

const lexical: number[] = [];
const fused: number[] = [];
// CPU time too: on a shared machine a query's wall time is mostly waiting for a core.
const fusedCpu: number[] = [];
for (let r = 0; r < rounds; r++)
  for (const q of labelled) {
    // A new wording each round, so no round repeats the last one's work.
    const query = `${q.query} ${r}`;
    let t = performance.now();
    directory.searchTools(query, 5);
    directory.searchToolkits(query);
    lexical.push(performance.now() - t);
    t = performance.now();
    const cpu = process.cpuUsage();
    directory.rankTools(query, 5);
    directory.rankToolkits(query);
    fused.push(performance.now() - t);
    const spent = process.cpuUsage(cpu);
    fusedCpu.push((spent.user + spent.system) / 1000);
  }
const at = (times: number[], p: number) => percentile(times, p).toFixed(1);
const c = directory.counts();
const n = labelled.length;
console.log(`directory: ${c.toolkits} toolkits, ${c.tools} tools (${dir})`);
console.log(`start-up: +${startMs.toFixed(1)} ms, idle RSS +${mib(idle - before)}`);
console.log(
  `first use: index read in ${indexMs.toFixed(0)} ms; first search by meaning ${firstMs.toFixed(0)} ms (reads the codes and term table); RSS after the searches and 3 shards +${mib(used - before)}, once quiet 4 s +${mib(quiet - quietBefore)} (against the process quiet before it), no embedder process`,
);
console.log(
  `recall@5 over ${n} queries: tools lexical ${recall.lexicalTools.toFixed(2)}, fused ${recall.fusedTools.toFixed(2)}; toolkits lexical ${recall.lexicalKits.toFixed(2)}, fused ${recall.fusedKits.toFixed(2)}`,
);
console.log(
  `search (tools + toolkits, whole catalogue) over ${lexical.length} queries: lexical p50 ${at(lexical, 0.5)} ms, p99 ${at(lexical, 0.99)} ms; fused (query embedded from the term table) p50 ${at(fused, 0.5)} ms, p99 ${at(fused, 0.99)} ms (CPU p50 ${at(fusedCpu, 0.5)} ms, p99 ${at(fusedCpu, 0.99)} ms); load average ${loadavg()[0]?.toFixed(1)}`,
);
process.exit(0);
