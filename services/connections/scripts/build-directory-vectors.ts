/**
 * Builds the directory's vectors (src/directory-vectors.ts) beside a built artifact: the term table
 * (every search term of a tool or toolkit and the model's own common words) embedded with the kit's
 * sentence model (two workers, one per core), each tool's and toolkit's vector summed from its
 * terms' vectors, and the table shipped, so a query is embedded from it with no model. Written to a
 * temporary folder and renamed, so a
 * reader never sees half of one; skipped when the artifact already has them (`--ensure`, what the
 * tests run). Every text's vector is also kept in the tools cache beside the artifacts
 * (`directory-embeddings-<model>/`), so a new artifact (another package version or format) embeds
 * only the texts it did not have: the first build on a machine takes 2–3 minutes of CPU on two cores,
 * later ones seconds.
 *
 *   node services/connections/scripts/build-directory-vectors.ts [--ensure] [<artifact dir>]
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import {
  SENTENCE_MODEL,
  SENTENCE_MODEL_DIMENSIONS,
  SentenceModel,
  sentenceModelWords,
} from "@gantry/kit/sentence-model.ts";
import { type DirectoryIndex, defaultArtifactDir, directoryRoot } from "../src/directory-format.ts";
import { quantise, signCode, VECTORS_FORMAT, type VectorsHeader, vectorsDir } from "../src/directory-vectors.ts";
import { terms } from "../src/search-terms.ts";

const D = SENTENCE_MODEL_DIMENSIONS;

/** What a toolkit's vector embeds: its name, categories and the first sentence of its description. */
export function toolkitText(t: DirectoryIndex["toolkits"][number]): string {
  const first = t.out.description.split(/[.!?]\s/)[0] ?? "";
  const text = `${t.out.name}: ${t.out.categories.join(", ")}. ${first.split(/\s+/).slice(0, 30).join(" ")}`;
  return text.replace(/\s+/g, " ");
}

/** Embeds texts on `workers` models side by side, shortest first (a batch pads to its longest text). */
async function embedAll(texts: string[], workers: number, log: (line: string) => void): Promise<Float32Array[]> {
  const order = texts.map((_, i) => i).sort((a, b) => (texts[a] as string).length - (texts[b] as string).length);
  const out: Float32Array[] = new Array(texts.length);
  const models = Array.from({ length: workers }, () => new SentenceModel({ batchSize: 64, name: "directory-vectors" }));
  const chunk = 512;
  let next = 0;
  let done = 0;
  const started = Date.now();
  try {
    await Promise.all(
      models.map(async (model) => {
        while (next < order.length) {
          const ids = order.slice(next, next + chunk);
          next += chunk;
          const vectors = await model.embed(ids.map((i) => texts[i] as string));
          ids.forEach((id, j) => {
            out[id] = vectors[j] as Float32Array;
          });
          done += ids.length;
          if (done % 2048 < chunk)
            log(`  ${done}/${texts.length} embedded, ${Math.round((Date.now() - started) / 1000)} s`);
        }
      }),
    );
  } finally {
    await Promise.all(models.map((m) => m.close()));
  }
  return out;
}

/** Embeds texts through the machine's cache of earlier builds' vectors, adding what it lacked. */
async function embedCached(texts: string[], log: (line: string) => void): Promise<Float32Array[]> {
  const dir = join(directoryRoot(), `directory-embeddings-${SENTENCE_MODEL}`);
  const cached = new Map<string, Float32Array>();
  if (existsSync(join(dir, "vectors.bin"))) {
    const known = readFileSync(join(dir, "texts.txt"), "utf8").split("\n");
    const all = new Float32Array(new Uint8Array(readFileSync(join(dir, "vectors.bin"))).buffer);
    known.forEach((text, i) => {
      cached.set(text, all.subarray(i * D, (i + 1) * D));
    });
  }
  const missing = [...new Set(texts.filter((t) => !cached.has(t)))];
  log(`${texts.length - missing.length} texts' vectors from ${dir}, ${missing.length} to embed`);
  if (missing.length) {
    const vectors = await embedAll(missing, 2, log);
    missing.forEach((text, i) => {
      cached.set(text, vectors[i] as Float32Array);
    });
    const known = [...cached.keys()];
    const all = new Float32Array(known.length * D);
    known.forEach((text, i) => {
      all.set(cached.get(text) as Float32Array, i * D);
    });
    const tmp = `${dir}.tmp-${process.pid}`;
    mkdirSync(tmp, { recursive: true });
    writeFileSync(join(tmp, "texts.txt"), known.join("\n"));
    writeFileSync(join(tmp, "vectors.bin"), all);
    rmSync(dir, { recursive: true, force: true });
    renameSync(tmp, dir);
  }
  return texts.map((t) => cached.get(t) as Float32Array);
}

export async function buildDirectoryVectors(
  artifact: string = defaultArtifactDir(),
  log: (line: string) => void = () => {},
): Promise<string> {
  const started = Date.now();
  const index = JSON.parse(
    gunzipSync(readFileSync(join(artifact, "index.json.gz"))).toString("utf8"),
  ) as DirectoryIndex;
  const raw = readFileSync(join(artifact, "postings.bin"));
  const postings = new Int32Array(new Uint8Array(raw).buffer);
  const tools = index.counts.tools;
  const kits = index.toolkits.length;
  // Numbers carry no meaning the model knows; every other term of a tool is embedded once.
  const termList = Object.keys(index.toolTerms).filter((t) => !/^[0-9]+$/.test(t));
  // The term table a query is embedded from: the tools' terms, the words only toolkits use
  // ("spotify", "french") and the model's own vocabulary of common words ("funny", "tomorrow", which
  // no API document says), folded by the same `terms`, sorted for a binary search.
  const toolTermSet = new Set(termList);
  const extra = new Set<string>();
  for (const word of [...Object.keys(index.kitTerms), ...sentenceModelWords().flatMap(terms)])
    if (!toolTermSet.has(word) && !/^[0-9]+$/.test(word)) extra.add(word);
  const embedded = [...termList, ...extra];
  const vocabulary = [...embedded].sort();
  log(`embedding ${vocabulary.length} terms (${termList.length} of tools) with ${SENTENCE_MODEL}`);
  const vectors = await embedCached(embedded, log);
  const termVector = new Map(embedded.map((t, i) => [t, vectors[i] as Float32Array]));
  const toolIdf = (t: string) => Math.log(1 + tools / (index.toolTerms[t]?.[1] ?? 1));
  // In a toolkit's text, a word no tool has weighs its rarity among toolkits.
  const kitDf = (t: string) => Math.max(1, index.kitTerms[t]?.[1] ?? 0);
  const kitWeight = (t: string) => (toolTermSet.has(t) ? toolIdf(t) : Math.log(1 + kits / kitDf(t)));
  // In a query, a word's rarity among tools times its rarity among toolkits' descriptions (prose):
  // "their" or "how" is rare in API paths and summaries but common in prose, and carries no meaning.
  const queryWeight = (t: string) => (toolIdf(t) * Math.log(1 + kits / kitDf(t))) / Math.log(1 + kits);
  const termVectors = new Int8Array(vocabulary.length * D);
  const termScales = new Float32Array(vocabulary.length);
  const termWeights = new Float32Array(vocabulary.length);
  vocabulary.forEach((t, r) => {
    termScales[r] = quantise(termVector.get(t) as Float32Array, termVectors, r * D);
    termWeights[r] = queryWeight(t);
  });

  // A toolkit's vector, like a tool's, is the weighted sum of its text's terms: in the space of the
  // query's (the model's embedding of the whole text lay apart from word sums: recall 0.62 vs 0.71).
  const kitVectors = new Int8Array(kits * D);
  const kitScales = new Float32Array(kits);
  index.toolkits.forEach((toolkit, k) => {
    const sum = new Float32Array(D);
    for (const t of terms(toolkitText(toolkit))) {
      const v = termVector.get(t);
      if (!v) continue;
      const w = kitWeight(t);
      for (let d = 0; d < D; d++) sum[d] = (sum[d] as number) + w * (v[d] as number);
    }
    let n = 0;
    for (const x of sum) n += x * x;
    if (n > 0) for (let d = 0; d < D; d++) sum[d] = (sum[d] as number) / Math.sqrt(n);
    kitScales[k] = quantise(sum, kitVectors, k * D);
  });

  // Tools in chunks, so the float sums never need a 107 000 × 512 array at once.
  const toolVectors = new Int8Array(tools * D);
  const toolScales = new Float32Array(tools);
  const unit: Float32Array[] = [];
  const mean = new Float64Array(D);
  const CHUNK = 16384;
  for (let from = 0; from < tools; from += CHUNK) {
    const to = Math.min(tools, from + CHUNK);
    const sums = new Float32Array((to - from) * D);
    termList.forEach((term, i) => {
      const [offset, df] = index.toolTerms[term] as [number, number];
      const v = vectors[i] as Float32Array;
      const idf = toolIdf(term);
      for (let j = offset; j < offset + df; j++) {
        const t = postings[j] as number;
        if (t < from || t >= to) continue;
        const at = (t - from) * D;
        for (let d = 0; d < D; d++) sums[at + d] = (sums[at + d] as number) + idf * (v[d] as number);
      }
    });
    for (let t = from; t < to; t++) {
      const v = sums.subarray((t - from) * D, (t - from + 1) * D);
      let n = 0;
      for (const x of v) n += x * x;
      if (n > 0) for (let d = 0; d < D; d++) v[d] = (v[d] as number) / Math.sqrt(n);
      toolScales[t] = quantise(v, toolVectors, t * D);
      for (let d = 0; d < D; d++) mean[d] = (mean[d] as number) + (v[d] as number) / tools;
      unit.push(v);
    }
  }
  const codes = new Uint32Array(tools * (D / 32));
  const meanArray = Array.from(mean, (x) => Math.round(x * 1e6) / 1e6);
  unit.forEach((v, t) => {
    signCode(v, meanArray, codes, t * (D / 32));
  });

  const dir = vectorsDir(artifact);
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const header: VectorsHeader = {
    format: VECTORS_FORMAT,
    model: SENTENCE_MODEL,
    dimensions: D,
    tools,
    toolkits: kits,
    terms: vocabulary.length,
    mean: meanArray,
  };
  writeFileSync(join(tmp, "kit-vectors.bin"), kitVectors);
  writeFileSync(join(tmp, "kit-scales.bin"), kitScales);
  writeFileSync(join(tmp, "tool-vectors.bin"), toolVectors);
  writeFileSync(join(tmp, "tool-scales.bin"), toolScales);
  writeFileSync(join(tmp, "tool-codes.bin"), codes);
  writeFileSync(join(tmp, "terms.txt"), vocabulary.join("\n"));
  writeFileSync(join(tmp, "term-vectors.bin"), termVectors);
  writeFileSync(join(tmp, "term-scales.bin"), termScales);
  writeFileSync(join(tmp, "term-weights.bin"), termWeights);
  writeFileSync(join(tmp, "vectors.json"), JSON.stringify(header));
  rmSync(dir, { recursive: true, force: true });
  try {
    renameSync(tmp, dir);
  } catch (err) {
    // Another process published the same vectors meanwhile (the build is deterministic): keep theirs.
    if (!existsSync(join(dir, "vectors.json"))) throw err;
    rmSync(tmp, { recursive: true, force: true });
  }
  log(
    `directory vectors: ${kits} toolkits, ${tools} tools, ${vocabulary.length} terms in ${Math.round((Date.now() - started) / 1000)} s → ${dir}`,
  );
  return dir;
}

/** The artifact's vectors, built when missing. */
export async function ensureDirectoryVectors(
  artifact: string = defaultArtifactDir(),
  log: (line: string) => void = () => {},
): Promise<string> {
  const dir = vectorsDir(artifact);
  if (existsSync(join(dir, "vectors.json"))) return dir;
  return buildDirectoryVectors(artifact, log);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const artifact = args.find((a) => !a.startsWith("--")) ?? defaultArtifactDir();
  const build = args.includes("--ensure") ? ensureDirectoryVectors : buildDirectoryVectors;
  console.log(await build(artifact, console.log));
  process.exit(0);
}
