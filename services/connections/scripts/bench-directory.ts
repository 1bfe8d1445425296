/**
 * What the directory toolkits cost the connections service, in this process (no stack needed):
 * start-up (what init does with CONNECTIONS_DIRECTORY=on: name the folder, check it exists), RSS
 * after the first use (index read, the labelled queries searched, three large toolkits' shards
 * read), and the latency of a whole-catalogue search (tools + toolkits) over the labelled set
 * src/directory-queries.json, p50 and p99 over `--rounds` rounds. Run with --expose-gc so the RSS
 * figures are after collection:
 *
 *   node --expose-gc services/connections/scripts/bench-directory.ts [--rounds 20]
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import "../src/service.ts";
import { Directory } from "../src/directory.ts";
import { defaultArtifactDir } from "../src/directory-format.ts";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "20" } } });
const rounds = Number(values.rounds);
const gc = (globalThis as { gc?: () => void }).gc;
const rss = () => {
  gc?.();
  gc?.();
  return process.memoryUsage().rss;
};
const mib = (b: number) => `${(b / 1048576).toFixed(1)} MiB`;

const dir = defaultArtifactDir();
if (!existsSync(join(dir, "index.json.gz"))) {
  console.error(`no directory at ${dir}: node services/connections/scripts/build-directory.ts`);
  process.exit(1);
}
const queries = (
  JSON.parse(readFileSync(new URL("../src/directory-queries.json", import.meta.url), "utf8")) as { query: string }[]
).map((q) => q.query);

const before = rss();
let started = performance.now();
const directory = new Directory(dir);
directory.has("twilio-com-api");
const startMs = performance.now() - started;
const idle = rss();
started = performance.now();
directory.counts();
const indexMs = performance.now() - started;
for (const q of queries) {
  directory.searchTools(q, 5);
  directory.searchToolkits(q);
}
for (const slug of ["stripe-com", "github-com-api-github-com", "twilio-com-api"]) directory.toolkit(slug);
const used = rss();
const times: number[] = [];
for (let r = 0; r < rounds; r++)
  for (const q of queries) {
    const t = performance.now();
    directory.searchTools(q, 5);
    directory.searchToolkits(q);
    times.push(performance.now() - t);
  }
times.sort((a, b) => a - b);
const at = (p: number) => (times[Math.min(times.length - 1, Math.floor(times.length * p))] ?? 0).toFixed(1);
const c = directory.counts();
console.log(`directory: ${c.toolkits} toolkits, ${c.tools} tools (${dir})`);
console.log(`start-up: +${startMs.toFixed(1)} ms, idle RSS +${mib(idle - before)}`);
console.log(
  `first use: index read in ${indexMs.toFixed(0)} ms; RSS after it, the searches and 3 shards +${mib(used - before)}`,
);
console.log(
  `search (tools + toolkits, whole catalogue): p50 ${at(0.5)} ms, p99 ${at(0.99)} ms over ${times.length} queries; load average ${(await import("node:os")).loadavg()[0]?.toFixed(1)}`,
);
process.exit(0);
