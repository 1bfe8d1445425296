/**
 * integration.search's re-ranking by the sentence model (src/tool-meaning.ts) with the real model: a
 * paraphrase's tool moves to the top of what words found, a tool's vector is embedded once per
 * version, an unrelated query adds nothing, a search past its budget answers by words, and a model that cannot load leaves the ranking by words as it was,
 * said once. (The labelled sets: directory-search.test.ts.)
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import assert from "node:assert/strict";
import type { Logger } from "@gantry/kit";
import { SentenceModel } from "@gantry/kit/sentence-model.ts";
import { ensureDirectory } from "../scripts/build-directory.ts";
import { Directory } from "./directory.ts";
import { rankConnectionTools, ToolMeaning, toolText } from "./tool-meaning.ts";
import type { Tool } from "./toolkits.ts";

const tool = (name: string, description: string) => ({ name, slug: name, description, version: 1 }) as Tool;

// Part of the directory's openai-com toolkit.
const OPENAI = [...(new Directory(ensureDirectory()).toolkit("openai-com")?.latest.values() ?? [])].filter((t) =>
  [
    "createTranscription",
    "createChatCompletion",
    "createEmbedding",
    "createImage",
    "createModeration",
    "deleteFile",
  ].includes(t.name),
);

/** The model, counting the texts it is asked to embed. */
class CountingModel extends SentenceModel {
  texts = 0;
  override embed(texts: string[]): Promise<Float32Array[]> {
    this.texts += texts.length;
    return super.embed(texts);
  }
}

const rank = (meaning: ToolMeaning | null, query: string, tools = OPENAI, warn: (m: string) => void = () => {}) =>
  rankConnectionTools({ toolkit: "openai-com", query, tools, directory: null, meaning, warn });

test("a tool's text is its name in words and its description's first sentence", () => {
  assert.equal(
    toolText(tool("PostRefunds", "Create a refund. When you create a new refund, you must specify a Charge.")),
    "post refunds. Create a refund.",
  );
  assert.equal(toolText(tool("calendar.events.quickAdd", "")), "calendar events quick add. ");
  // Markup is not read: Stripe's descriptions are HTML, others' Markdown.
  assert.equal(
    toolText(
      tool("GetAccounts", '<p>Returns a list of accounts connected via <a href="/docs/connect">Connect</a>.</p>'),
    ),
    "get accounts. Returns a list of accounts connected via Connect.",
  );
  assert.equal(
    toolText(tool("getPet", "Find a pet by id (see [the guide](https://example.com/pets)) &amp; its owner.")),
    "get pet. Find a pet by id (see the guide) & its owner.",
  );
});

test("the model re-orders what words found, embeds each tool version once, and adds nothing", async () => {
  const model = new CountingModel({ isolation: "process", name: "tool-meaning-test" });
  const meaning = new ToolMeaning({ model, budgetMs: Number.POSITIVE_INFINITY });
  const query = "check a comment for hate speech";
  try {
    // Words find several tools alike, the moderation one not first.
    const words = await rank(null, query);
    assert.ok(
      words.some((r) => r.name === "createModeration") && words[0]?.name !== "createModeration",
      JSON.stringify(words),
    );
    const ranked = await rank(meaning, query);
    assert.equal(ranked[0]?.name, "createModeration", JSON.stringify(ranked));
    assert.deepEqual(ranked.map((r) => r.name).sort(), words.map((r) => r.name).sort(), "the same tools");
    assert.ok(
      ranked.every((r, i) => r.score >= 0 && r.score <= 1 && (i === 0 || r.score <= (ranked[i - 1]?.score ?? 1))),
    );
    assert.equal(model.texts, 1 + words.length, "the query and each tool words found, once");
    await rank(meaning, query);
    assert.equal(model.texts, 2 + words.length, "then the query alone: tool vectors are cached");
    // A new version of a tool is new text to embed; the others stay cached.
    const renewed = OPENAI.map((t) => (t.name === "createModeration" ? { ...t, version: t.version + 1 } : t));
    await rank(meaning, query, renewed);
    assert.equal(model.texts, 4 + words.length);
    // What words do not find, the model does not add (its cosine cannot tell unrelated tools apart).
    assert.deepEqual(await rank(meaning, "refund a payment"), []);
  } finally {
    await meaning.close();
  }
});

test("past its budget a search answers by words, and the tools' vectors still reach the cache", async () => {
  const model = new SentenceModel({ isolation: "process", name: "tool-meaning-test" });
  const meaning = new ToolMeaning({ model, budgetMs: 1 });
  try {
    const words = await rank(null, "check a comment for hate speech");
    // Starting the model alone takes far longer than 1 ms.
    assert.deepEqual(await rank(meaning, "check a comment for hate speech"), words);
    for (let i = 0; i < 600 && meaning.cached < words.length; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(meaning.cached, words.length, "every tool words found embedded after all");
  } finally {
    await meaning.close();
  }
});

test("a model that cannot load: the ranking by words, unchanged, and one warning", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gantry-tool-meaning-"));
  const broken = join(dir, "broken-worker.mjs");
  writeFileSync(broken, `import "@energetic-ai/no-such-model-package";\n`);
  const warnings: string[] = [];
  const model = new SentenceModel({ workerUrl: pathToFileURL(broken), isolation: "process" });
  const meaning = new ToolMeaning({ model, log: { warn: (m: string) => void warnings.push(m) } as unknown as Logger });
  try {
    const words = await rank(null, "delete a file");
    assert.ok(words.length > 0);
    assert.deepEqual(await rank(meaning, "delete a file"), words);
    assert.equal(warnings.length, 1);
    assert.match(
      warnings[0] ?? "",
      /ranks by words only for 5 minutes: the sentence model is unavailable \(.*(could not load|before it loaded)/,
    );
    // Not tried again on every search.
    assert.deepEqual(await rank(meaning, "create an image"), await rank(null, "create an image"));
    assert.equal(warnings.length, 1);
  } finally {
    await meaning.close();
  }
});
