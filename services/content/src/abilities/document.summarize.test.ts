/**
 * document.summarize: extractive, deterministic, in input order, offsets that slice the input back,
 * the documented budgets, and sentence splitting that survives abbreviations and decimals.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { type ContentTest, startContent } from "../test/helpers.ts";

let t: ContentTest;
before(async () => {
  t = await startContent();
});
after(async () => t?.stop());

const REPORT = [
  "Quarterly report for Northwind Studio.",
  "Revenue grew 12% to $1.2M, driven by the care-plan subscriptions launched in February.",
  "Care-plan subscriptions now make up half of revenue, and subscription churn fell from 4% to 2.5%.",
  "The office plants were watered on Tuesdays.",
  "Churn fell after onboarding calls were introduced for every new care-plan subscription.",
  "Costs rose 8%, mainly hosting.",
  "Dr. Obi joined the board in March.",
  "Hosting costs will drop when the care-plan sites move to the new cluster.",
  "Next quarter: launch the reseller programme for care-plan subscriptions and hire a second support engineer.",
  "Lunch was pizza.",
].join("  ");

test("extractive summary: central sentences, input order, offsets that slice back, deterministic", async () => {
  const a = await t.s.call("document.summarize", { text: REPORT, length: "short" });
  assert.equal(a.method, "extractive");
  assert.equal(a.model, null);
  assert.equal(a.length, "short");
  assert.equal(a.inputChars, REPORT.length);
  assert.equal(a.inputSentences, 10, "'Dr.' and '2.5%' do not end sentences");
  assert.equal(a.sentences.length, 1, "short: ceil(10% of 10) = 1");
  for (const s of a.sentences) {
    assert.equal(REPORT.slice(s.start, s.end), s.text);
    assert.ok(s.score > 0 && s.score <= 1);
  }
  assert.match(a.summary, /care-plan/i, "the most central sentence is about the care plan");
  assert.ok(!/pizza|plants/.test(a.summary));
  const again = await t.s.call("document.summarize", { text: REPORT, length: "short" });
  assert.deepEqual(again, a);

  const medium = await t.s.call("document.summarize", { text: REPORT });
  assert.equal(medium.length, "medium", "medium is the default");
  assert.equal(medium.sentences.length, 3, "medium: at least 3");
  const indexes = medium.sentences.map((s: any) => s.index);
  assert.deepEqual(
    indexes,
    [...indexes].sort((x, y) => x - y),
    "in input order",
  );
  assert.equal(medium.summary, medium.sentences.map((s: any) => s.text).join(" "));
  assert.ok(medium.sentences.some((s: any) => s.score === 1));

  const long = await t.s.call("document.summarize", { text: REPORT, length: "long" });
  assert.equal(long.sentences.length, 5, "long: at least 5");
  assert.ok(!long.sentences.some((s: any) => /pizza/.test(s.text)));
});

test("short texts: never more sentences than the input has; UTF-16 offsets", async () => {
  const text = "  Café crème 😀 ist gut.   Zweiter Satz hier.";
  const r = await t.s.call("document.summarize", { text, length: "long" });
  assert.equal(r.inputSentences, 2);
  assert.equal(r.sentences.length, 2);
  for (const s of r.sentences) assert.equal(text.slice(s.start, s.end), s.text);
  assert.equal(r.sentences[0].start, 2);
});
