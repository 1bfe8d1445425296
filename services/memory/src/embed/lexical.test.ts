/**
 * lexical-hash-v1: deterministic, 768-dimensional, unit length, and lexical in the ways it claims
 * (shared words, plurals, typos) and not in the ways it does not (paraphrases).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { LexicalHashEmbedder, stem, tokenize, wordingSimilarity } from "./lexical.ts";
import { dot } from "./types.ts";

const e = new LexicalHashEmbedder();
const one = async (t: string) => (await e.embed([t], "document"))[0];
const cos = async (a: string, b: string) => dot(await one(a), await one(b));

test("768 dimensions, unit length, deterministic, named lexical-hash-v1", async () => {
  const v = await one("Biscuit is allergic to chicken");
  assert.equal(e.model, "lexical-hash-v1");
  assert.equal(v.length, 768);
  assert.ok(Math.abs(dot(v, v) - 1) < 1e-5);
  assert.deepEqual(await one("Biscuit is allergic to chicken"), v);
  assert.equal(dot(await one("!!! ???"), await one("!!! ???")), 0, "no features: zero vector");
});

test("tokenizer folds case and diacritics; the stemmer only strips plurals and possessives", () => {
  assert.deepEqual(tokenize("Crème Brûlée, CAFÉ's menu!"), ["creme", "brulee", "cafe", "s", "menu"]);
  assert.equal(stem("invoices"), "invoice");
  assert.equal(stem("batteries"), "battery");
  assert.equal(stem("boxes"), "box");
  assert.equal(stem("status"), "status");
  assert.equal(stem("analysis"), "analysis");
  assert.equal(stem("running"), "running");
});

test("shared words, plurals and typos score high; unrelated text scores near zero", async () => {
  const base = "the salmon kibble for the golden retriever";
  assert.ok((await cos(base, "golden retriever salmon kibble")) > 0.6);
  assert.ok((await cos("send the invoices monthly", "send the invoice monthly")) > 0.9);
  assert.ok((await cos("chicken allergy", "chiken allergy")) > 0.5, "a typo keeps most trigrams");
  assert.ok(Math.abs(await cos(base, "quarterly tax filing deadline")) < 0.15);
});

test("honest limits: paraphrases without shared words do not match", async () => {
  assert.ok((await cos("the dog is sick", "my puppy feels unwell")) < 0.2);
});

test("identical and near-identical texts clear the 0.97 dedup threshold; different facts do not", async () => {
  assert.ok((await cos("Biscuit is allergic to chicken.", "Biscuit is allergic to chicken!")) >= 0.97);
  assert.ok((await cos("Biscuit is allergic to chicken.", "biscuit is ALLERGIC to chicken")) >= 0.97);
  assert.ok((await cos("Biscuit is allergic to chicken.", "Biscuit is allergic to beef.")) < 0.97);
});

test("wordingSimilarity (memory.save's duplicate test with semantic embedders): same words ≥ 0.97, another id or number < 0.97", () => {
  assert.ok(wordingSimilarity("Ada prefers WhatsApp.", "ada prefers whatsapp!") > 0.9999);
  assert.ok(wordingSimilarity("Invoice INV-1001 is paid.", "Invoice INV-1002 is paid.") < 0.97);
  assert.ok(wordingSimilarity("The clinic closes at 6pm.", "The clinic closes at 5pm.") < 0.97);
  assert.equal(wordingSimilarity("!!!", "???"), 0);
});
