/**
 * The directory's fused search: the query's vector made from the term table (no model at query
 * time), what happens when it cannot be (vectors missing or of another format: the lexical ranking,
 * said once and why; no query word in the table: the lexical ranking, nothing to warn of), and every
 * labelled query (directory-queries.json) searched within its own toolkit the way integration.search
 * ranks a connection's tools, its misses printed. (Recall over the whole catalogue: directory.test.ts.)
 */
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { ensureDirectory } from "../scripts/build-directory.ts";
import { ensureDirectoryVectors } from "../scripts/build-directory-vectors.ts";
import { Directory } from "./directory.ts";
import { labelledQueries, withinHits } from "./directory-queries.ts";
import { DirectoryVectors, vectorsDir } from "./directory-vectors.ts";
import { ToolMeaning } from "./tool-meaning.ts";
import { queryWords, toolScore, toolScores } from "./tool-search.ts";

const ids = (tools: { toolkit: string; name: string }[]) => tools.map((t) => `${t.toolkit}.${t.name}`);
const ARTIFACT_FILES = ["index.json.gz", "postings.bin", "tool-kit.bin", "tool-length.bin", "tool-names.txt", "kits"];

/** The built artifact's files linked into a scratch folder, without its vectors. */
function bareCopy(built: string): string {
  const bare = mkdtempSync(join(tmpdir(), "directory-bare-"));
  for (const f of ARTIFACT_FILES) symlinkSync(join(built, f), join(bare, f));
  return bare;
}

test("a query's vector comes from the term table: fused ranking, a word no API says finds its tool", async () => {
  const dir = ensureDirectory();
  await ensureDirectoryVectors(dir);
  const directory = new Directory(dir);
  const vectors = new DirectoryVectors(dir);
  const q = vectors.embedQuery("tell me something funny");
  assert.ok(q, "every word of the query is in the table");
  let norm = 0;
  for (const x of q) norm += x * x;
  assert.ok(Math.abs(norm - 1) < 1e-5, `a unit vector (norm² ${norm})`);
  // No tool says "funny" (words alone find none); the model's own vocabulary knows it is near "joke".
  assert.ok(!ids(directory.searchTools("tell me something funny", 5)).some((id) => /joke/i.test(id)));
  const fused = directory.rankTools("tell me something funny", 5);
  assert.equal(fused.ranking, "fused");
  assert.ok(
    ids(fused.tools).some((id) => /joke/i.test(id)),
    `a joke tool in the top 5: ${ids(fused.tools).join(", ")}`,
  );
  // Words the table does not know carry no meaning: ranked by words, and nothing is wrong to warn of.
  assert.equal(vectors.embedQuery("zqxv blorptastic"), null);
  const unknown = directory.rankTools("zqxv blorptastic", 5);
  assert.equal(unknown.ranking, "lexical");
  assert.equal(unknown.warning, undefined);
});

test("vectors of another format: lexical ranking, said once, naming both formats", () => {
  const built = new Directory(ensureDirectory());
  const bare = bareCopy(built.dir);
  const vectors = vectorsDir(bare);
  mkdirSync(vectors);
  const header = JSON.parse(readFileSync(join(vectorsDir(built.dir), "vectors.json"), "utf8"));
  writeFileSync(join(vectors, "vectors.json"), JSON.stringify({ ...header, format: 1 }));
  const directory = new Directory(bare);
  const first = directory.rankTools("send an sms", 5);
  assert.equal(first.ranking, "lexical");
  assert.match(first.warning ?? "", /lexical only: the directory's vectors cannot be read \(.*holds vectors format 1/);
  assert.deepEqual(ids(first.tools), ids(directory.searchTools("send an sms", 5)), "the lexical ranking, unchanged");
  const again = directory.rankToolkits("send an sms");
  assert.equal(again.ranking, "lexical");
  assert.equal(again.warning, undefined, "the warning is logged once, not per query");
});

test("vectors not built for the artifact: lexical ranking, naming the build command", () => {
  const built = new Directory(ensureDirectory());
  const directory = new Directory(bareCopy(built.dir));
  const within = directory.rankWithin("twilio-com-api", "send a message", new Map([["CreateMessage", 1]]));
  assert.equal(within.ranking, "lexical");
  assert.match(
    within.warning ?? "",
    /vectors are not built \(node services\/connections\/scripts\/build-directory-vectors.ts\)/,
  );
  assert.deepEqual(within.tools, [{ name: "CreateMessage", score: 1 }]);
});

test("a query's words: no possessive 's or stand-in pronouns, an idiom read as its word, synonyms both ways", () => {
  assert.deepEqual(queryWords("give a customer's friend their money back"), ["give", "customer", "friend", "refund"]);
  const refund = { name: "PostRefunds", slug: "PostRefunds", description: "Create a refund." };
  const cards = { name: "PostCustomersCustomerCards", slug: "PostCustomersCustomerCards", description: "Add a card." };
  assert.ok(toolScore(refund, queryWords("money back")) > toolScore(cards, queryWords("money back")));
  // "issue" reaches a bug tool and "bug" an issue tool, each below the word itself.
  const issue = { name: "issues_create", slug: "issues_create", description: "Create an issue" };
  assert.ok(toolScore(issue, queryWords("report a bug")) > 0);
  assert.ok(toolScore(issue, queryWords("report a bug")) < toolScore(issue, queryWords("report an issue")));
  const detect = {
    name: "Face_DetectWithUrl",
    slug: "Face_DetectWithUrl",
    description: "Detect human faces in an image.",
  };
  assert.ok(toolScore(detect, queryWords("find faces")) > toolScore(detect, queryWords("faces")) / 2);
});

test("a tool's words are its description's text, not its markup: no tag, link target or entity is a word of it", () => {
  const refund = {
    name: "PostRefunds",
    slug: "PostRefunds",
    description:
      '<p>Create a refund. See <a href="https://stripe.com/docs/api/charges">the reference</a>&nbsp;&amp; [the guide](https://stripe.com/docs/disputes).</p>',
  };
  for (const word of ["p", "href", "charges", "disputes", "nbsp", "amp"])
    assert.equal(toolScore(refund, queryWords(word)), 0, `"${word}" is markup`);
  for (const word of ["refund", "reference", "guide"]) assert.ok(toolScore(refund, queryWords(word)) > 0, word);
});

test("everyday verbs and phrasal verbs meet the operation an API names, whole words only", () => {
  assert.deepEqual(queryWords("call off a meeting"), ["cancel", "meeting"]);
  assert.deepEqual(queryWords("recall offers"), ["recall", "offer"], "an idiom is whole words");
  const create = { name: "issues_create", slug: "issues_create", description: "Create an issue" };
  const list = { name: "issues_list", slug: "issues_list", description: "List issues" };
  assert.ok(toolScore(create, queryWords("report a bug")) > toolScore(list, queryWords("report a bug")));
  const remove = { name: "events.delete", slug: "events.delete", description: "Deletes an event." };
  const insert = { name: "events.insert", slug: "events.insert", description: "Creates an event." };
  assert.ok(toolScore(remove, queryWords("call off a meeting")) > toolScore(insert, queryWords("call off a meeting")));
});

test("a means of sending said first, followed by whom, is sending one; followed by anything else it stays a thing", () => {
  assert.deepEqual(queryWords("text a customer's phone"), ["send", "text", "customer", "phone"]);
  assert.deepEqual(queryWords("email my team"), ["send", "email", "team"]);
  assert.deepEqual(queryWords("text to speech"), ["text", "speech"]);
  assert.deepEqual(queryWords("email address validation"), ["email", "address", "validation"]);
});

test("a word no tool of a toolkit is named by is read in full as the synonym its tools are named by", () => {
  const tool = (name: string, description: string) => ({ name, slug: name, description });
  // Twilio's shape: many tools named "phone", the one that sends named "message", none "text".
  const twilio = [
    tool("CreateMessage", "Send a message"),
    tool("ListMessage", "Retrieve a list of messages belonging to the account"),
    ...["Create", "Delete", "Fetch", "List", "Update"].map((verb) =>
      tool(`${verb}IncomingPhoneNumber`, `${verb} an incoming phone-number of the account.`),
    ),
  ];
  const best = (tools: typeof twilio, query: string) =>
    [...toolScores(tools, queryWords(query))].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0];
  assert.equal(best(twilio, "text a customer's phone"), "CreateMessage");
  // Where a tool is named by the word itself, it still outranks its synonym's.
  const sms = [tool("CreateMessage", "Send a message"), tool("SendSms", "Send an SMS"), tool("GetBalance", "Balance")];
  assert.equal(best(sms, "send an sms"), "SendSms");
});

test("a prefix meets a word that only adds an ending: issue meets issues, follow following, repo not report", () => {
  const tool = (name: string) => ({ name, slug: name, description: "" });
  assert.ok(toolScore(tool("usersFollowing"), queryWords("follow")) > 0);
  assert.ok(toolScore(tool("issuesList"), queryWords("issue")) > 0);
  assert.equal(toolScore(tool("repos_get"), ["report"]), 0);
  assert.equal(toolScore(tool("codespaces_list"), ["code"]), 0);
});

test("within a toolkit, a word most of its tools say weighs less than one few say", () => {
  const tool = (name: string, description: string) => ({ name, slug: name, description });
  const stripe = [
    tool("PostRefunds", "Create a refund."),
    tool("PostCustomers", "Creates a new customer object."),
    tool("GetCustomers", "Returns a list of your customers."),
    tool("PostCustomersCustomerCards", "Add a card to a customer."),
    tool("DeleteCustomersCustomer", "Permanently deletes a customer."),
  ];
  const query = queryWords("give a customer their money back");
  // Alike, "customer" and "refund" each meet a tool's name once: the customer tools tie the refund.
  assert.equal(toolScore(stripe[0] as never, query), toolScore(stripe[1] as never, query));
  const scores = toolScores(stripe, query);
  const best = [...scores].sort((a, b) => b[1] - a[1]);
  assert.equal(best[0]?.[0], "PostRefunds", JSON.stringify(best));
  assert.ok([...scores.values()].every((x) => x >= 0 && x <= 1));
  assert.deepEqual([...toolScores(stripe, []).values()], [0, 0, 0, 0, 0], "no query words: no score");
});

test("within a toolkit, of tools a query meets alike, the one whose every name word it says ranks first", () => {
  const tool = (name: string, description: string) => ({ name, slug: `github.${name}`, description });
  // GitHub's shape: "report a bug" meets the issue tools alike by its words (report → create, bug → issue).
  const github = [
    tool("issues_create-comment", "Create an issue comment"),
    tool("issues_create-milestone", "Create a milestone"),
    tool("issues_create", "Create an issue"),
    tool("reactions_create-for-issue-comment", "Create reaction for an issue comment"),
    tool("repos_get", "Get a repository"),
  ];
  const scores = toolScores(github, queryWords("report a bug"));
  const ranked = [...scores].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  assert.equal(ranked[0]?.[0], "issues_create", JSON.stringify(ranked));
  assert.ok((scores.get("issues_create") ?? 0) > (scores.get("issues_create-comment") ?? 0), JSON.stringify(ranked));
  assert.equal(scores.get("repos_get"), 0, "a tool the query does not meet gets nothing for its name");
  assert.ok([...scores.values()].every((x) => x >= 0 && x <= 1));
});

test("integration.search within its toolkit: a labelled tool in the top 5 for each labelled query, paraphrases aside", async () => {
  const dir = ensureDirectory();
  await ensureDirectoryVectors(dir);
  const directory = new Directory(dir);
  // No budget: a cold toolkit's first search must wait for the model here, not answer by words.
  const meaning = new ToolMeaning({ budgetMs: Number.POSITIVE_INFINITY });
  try {
    const report = (name: string, r: Awaited<ReturnType<typeof withinHits>>) =>
      console.log(
        `integration.search within the toolkit, ${name}: ${r.hits}/${r.asked} hit${r.misses.length ? `\n  misses: ${r.misses.join("\n  ")}` : ""}`,
      );
    const words = await withinHits(directory, null, labelledQueries());
    report("words and term vectors (CONNECTIONS_TOOL_MEANING=off)", words);
    const model = await withinHits(directory, meaning, labelledQueries());
    report("re-ranked by the sentence model", model);
    const heldOut = await withinHits(directory, meaning, labelledQueries("held-out"));
    report("held-out set, re-ranked by the sentence model", heldOut);
    const heldOutWords = await withinHits(directory, null, labelledQueries("held-out"));
    report("held-out set, words and term vectors", heldOutWords);
    const heldOut2 = await withinHits(directory, meaning, labelledQueries("held-out-2"));
    report("second held-out set, re-ranked by the sentence model", heldOut2);
    const heldOut2Words = await withinHits(directory, null, labelledQueries("held-out-2"));
    report("second held-out set, words and term vectors", heldOut2Words);
    // Measured 48 of 51 by words and term vectors, 51 with the model (held out: 10 and 11 of 15; the
    // second held-out set 3 and 4 of 10). The misses left are in services/connections/README.md
    // (Tool discovery). Each floor is what was measured, so a regression of the words, the vectors or
    // the model's re-ranking fails here.
    assert.ok(words.asked >= 50, `${words.asked} labelled queries have a tool in their own toolkit`);
    assert.ok(words.hits >= 48, `by words: ${words.hits}/${words.asked} hit`);
    assert.ok(model.hits >= 51, `with the model: ${model.hits}/${model.asked} hit`);
    assert.ok(model.hits > words.hits, "the model finds what words alone miss");
    assert.ok(heldOut.hits >= 11, `held out, with the model: ${heldOut.hits}/${heldOut.asked} hit`);
    assert.ok(heldOutWords.hits >= 10, `held out, by words: ${heldOutWords.hits}/${heldOutWords.asked} hit`);
    assert.ok(heldOut2.hits >= 4, `second held out, with the model: ${heldOut2.hits}/${heldOut2.asked} hit`);
    assert.ok(heldOut2Words.hits >= 3, `second held out, by words: ${heldOut2Words.hits}/${heldOut2Words.asked} hit`);
    assert.equal(heldOut2.asked, 10, "the second held-out set's queries each have a tool in their own toolkit");
  } finally {
    await meaning.close();
  }
});
