/**
 * Recall of the directory's searches on all three labelled sets (src/directory-queries.ts), side by
 * side, in this process (no stack): integration.search within each query's own toolkit, by words
 * and term vectors and re-ranked by the sentence model (hits in the top 5, the misses with the
 * labelled tool's rank), and recall@5 of the whole-catalogue rankings (tools and toolkits, words
 * only and fused). What src/directory-search.test.ts and src/directory.test.ts assert, for comparing
 * a change to the words, the weights or the model before and after without running the tests:
 *
 *   node services/connections/scripts/search-recall.ts [--words]   (--words: without the model, a few seconds)
 */
import { ensureDirectory } from "./build-directory.ts";
import { ensureDirectoryVectors } from "./build-directory-vectors.ts";
import { Directory } from "../src/directory.ts";
import { directoryRecall, labelledQueries, withinHits } from "../src/directory-queries.ts";
import { ToolMeaning } from "../src/tool-meaning.ts";

const directory = new Directory(ensureDirectory());
await ensureDirectoryVectors(directory.dir);
// No budget: a cold toolkit's first search waits for the model, as the test's does.
const meaning = process.argv.includes("--words") ? null : new ToolMeaning({ budgetMs: Number.POSITIVE_INFINITY });
try {
  for (const set of ["tuned", "held-out", "held-out-2"] as const) {
    const queries = labelledQueries(set);
    const words = await withinHits(directory, null, queries);
    const model = meaning ? await withinHits(directory, meaning, queries) : null;
    const all = directoryRecall(directory, queries);
    console.log(
      `${set} (${queries.length} queries): within the toolkit ${words.hits}/${words.asked} by words${model ? `, ${model.hits}/${model.asked} with the model` : ""}; whole catalogue recall@5 tools ${all.lexicalTools.toFixed(2)} words / ${all.fusedTools.toFixed(2)} fused, toolkits ${all.lexicalKits.toFixed(2)} / ${all.fusedKits.toFixed(2)}`,
    );
    for (const [name, r] of [
      ["by words", words],
      ["with the model", model],
    ] as const)
      if (r?.misses.length) console.log(`  misses ${name}:\n    ${r.misses.join("\n    ")}`);
  }
} finally {
  await meaning?.close();
}
