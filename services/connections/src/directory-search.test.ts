/**
 * The directory's fused search when meaning is unavailable: vectors not built, or a sentence model
 * that cannot load. Either way the ranking is the lexical one, says so (`ranking: "lexical"`) and
 * why, once, rather than failing the search. (Recall of the fused ranking: directory.test.ts.)
 */
import { mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "node:test";
import assert from "node:assert/strict";
import { SentenceModel } from "@gantry/kit/sentence-model.ts";
import { ensureDirectory } from "../scripts/build-directory.ts";
import { Directory } from "./directory.ts";
import { DirectorySearch } from "./directory-search.ts";

const ids = (tools: { toolkit: string; name: string }[]) => tools.map((t) => `${t.toolkit}.${t.name}`);

test("a sentence model that cannot load: lexical ranking, said once, with the model's error", async () => {
  const directory = new Directory(ensureDirectory());
  const scratch = mkdtempSync(join(tmpdir(), "directory-search-"));
  const broken = join(scratch, "broken-worker.ts");
  writeFileSync(broken, `import "@energetic-ai/no-such-model-package";\n`);
  const search = new DirectorySearch(directory.dir, directory, {
    model: new SentenceModel({ workerUrl: pathToFileURL(broken) }),
  });
  const lexical = ids(directory.searchTools("send an sms", 5));
  const first = await search.tools("send an sms", 5);
  assert.equal(first.ranking, "lexical");
  assert.match(first.warning ?? "", /lexical only: the sentence model failed \(.*could not load/);
  assert.deepEqual(ids(first.tools), lexical, "the lexical ranking, unchanged");
  const again = await search.toolkits("send an sms");
  assert.equal(again.ranking, "lexical");
  assert.equal(again.warning, undefined, "the warning is logged once, not per query");
  assert.deepEqual(
    again.toolkits.map((k) => k.slug),
    directory.searchToolkits("send an sms").map((k) => k.slug),
  );
  await search.close();
});

test("vectors not built for the artifact: lexical ranking, naming the build command", async () => {
  const built = new Directory(ensureDirectory());
  // The same artifact without its vectors folder.
  const bare = mkdtempSync(join(tmpdir(), "directory-bare-"));
  for (const f of ["index.json.gz", "postings.bin", "tool-kit.bin", "tool-length.bin", "tool-names.txt", "kits"])
    symlinkSync(join(built.dir, f), join(bare, f));
  const directory = new Directory(bare);
  const within = await directory.rankWithin("twilio-com-api", "send a message", new Map([["CreateMessage", 1]]));
  assert.equal(within.ranking, "lexical");
  assert.match(
    within.warning ?? "",
    /vectors are not built \(node services\/connections\/scripts\/build-directory-vectors.ts\)/,
  );
  assert.deepEqual(within.tools, [{ name: "CreateMessage", score: 1 }]);
  await directory.close();
});
