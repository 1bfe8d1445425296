/**
 * document.generate: a PDF printed by real Chromium whose text (read back with pdftotext) holds the
 * title, headings, list and table; an HTML page with the theme; both downloadable over HTTP through
 * the signed link until it expires, and not with a tampered or expired one.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { asSystem } from "@gantry/kit";
import { sweepArtifacts } from "../sweep.ts";
import { type ContentTest, startContent } from "../test/helpers.ts";

let t: ContentTest;
let clockDir: string;
let clockFile: string;
before(async () => {
  clockDir = mkdtempSync(join(tmpdir(), "gantry-content-clock-"));
  clockFile = join(clockDir, "offset");
  writeFileSync(clockFile, "0");
  t = await startContent({ GANTRY_TEST_CLOCK_FILE: clockFile, CONTENT_ARTIFACT_TTL_SECONDS: "3600" });
});
after(async () => {
  await t?.stop();
  rmSync(clockDir, { recursive: true, force: true });
});

const markdown = [
  "# Proposal",
  "",
  "## Scope",
  "",
  "- Monthly updates",
  "- Uptime monitoring",
  "",
  "| Item | Price |",
  "|---|---|",
  "| Care plan | $49.99/month |",
  "",
  "```",
  "deploy --prod",
  "```",
  "",
  "[bad](javascript:alert(1)) <img src=x onerror=alert(1)>",
].join("\n");

test("pdf: Chromium renders it, pdftotext reads the text back, the signed link downloads it", async () => {
  const doc = await t.s.call(
    "document.generate",
    {
      title: "Website care plan — proposal",
      markdown,
      format: "pdf",
      filename: "care-plan-proposal",
      theme: { brandColor: "#1e3a5f", firmName: "Northwind Studio" },
    },
    { tenant: "doc-co" },
  );
  assert.match(doc.id, /^art_/);
  assert.equal(doc.filename, "care-plan-proposal.pdf");
  assert.equal(doc.contentType, "application/pdf");
  assert.equal(doc.pages, 1);
  assert.ok(Date.parse(doc.expires) - Date.parse(doc.created) === 3_600_000);

  const res = await t.s.fetchFile(doc.url);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "application/pdf");
  assert.match(String(res.headers.get("content-disposition")), /filename="care-plan-proposal\.pdf"/);
  const bytes = Buffer.from(await res.arrayBuffer());
  assert.equal(bytes.length, doc.bytes);
  assert.equal(createHash("sha256").update(bytes).digest("hex"), doc.sha256);
  assert.equal(bytes.subarray(0, 5).toString(), "%PDF-");

  const dir = mkdtempSync(join(tmpdir(), "gantry-pdf-"));
  try {
    const file = join(dir, "doc.pdf");
    writeFileSync(file, bytes);
    const text = execFileSync("pdftotext", ["-layout", file, "-"], { encoding: "utf8" });
    for (const want of [
      "Northwind Studio",
      "Website care plan — proposal",
      "Proposal",
      "Scope",
      "Monthly updates",
      "Uptime monitoring",
      "Care plan",
      "$49.99/month",
      "deploy --prod",
    ])
      assert.ok(text.includes(want), `PDF text has ${JSON.stringify(want)}:\n${text}`);
    assert.ok(!text.includes("javascript"));
    const info = execFileSync("pdfinfo", [file], { encoding: "utf8" });
    assert.match(info, /Title:\s+Website care plan — proposal/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  // A tampered signature, or a link moved to another expiry, does not download.
  const bad = new URL(doc.url);
  bad.searchParams.set("sig", "0".repeat(64));
  assert.equal((await t.s.fetchFile(bad)).status, 403);
  const moved = new URL(doc.url);
  moved.searchParams.set("expires", String(Number(moved.searchParams.get("expires")) + 1000));
  assert.equal((await t.s.fetchFile(moved)).status, 403);

  // After expiry: 410.
  writeFileSync(clockFile, String(3_600_001));
  try {
    assert.equal((await t.s.fetchFile(doc.url)).status, 410);
  } finally {
    writeFileSync(clockFile, "0");
  }
});

test("html: a themed standalone page, sanitized; the file name from the title", async () => {
  const doc = await t.s.call("document.generate", {
    title: "Café report",
    markdown,
    format: "html",
    theme: { brandColor: "#0a7d32", firmName: "Acme" },
  });
  assert.equal(doc.filename, "cafe-report.html");
  assert.equal(doc.pages, null);
  assert.equal(doc.contentType, "text/html; charset=utf-8");
  const res = await t.s.fetchFile(doc.url);
  assert.equal(res.status, 200);
  const html = await res.text();
  assert.match(html, /<title>Café report<\/title>/);
  assert.match(html, /#0a7d32/);
  assert.match(html, /<li>Monthly updates<\/li>/);
  assert.match(html, /<th>Item<\/th>/);
  assert.ok(!/javascript:/i.test(html));
  assert.ok(!html.includes("<img src=x"), "raw HTML is text");
  assert.equal(Buffer.byteLength(html), doc.bytes);
});

test("the sweep deletes expired documents' bytes and records, also when two replicas sweep at once", async () => {
  const doc = await t.s.call("document.generate", { title: "Short-lived", markdown: "Soon gone.", format: "html" });
  const kept = await t.s.call(
    "document.generate",
    { title: "Another tenant's", markdown: "Also expires.", format: "html" },
    {
      tenant: "keep-co",
    },
  );
  const counts = async () =>
    (
      await t.s.db.query(
        `SELECT (SELECT count(*)::int FROM content.artifacts WHERE id = ANY($1)) AS rows,
                (SELECT count(*)::int FROM content.blobs WHERE key = ANY($2)) AS blobs`,
        [
          [doc.id, kept.id],
          [`artifacts/${doc.id}.html`, `artifacts/${kept.id}.html`],
        ],
      )
    ).rows[0];
  assert.deepEqual(await counts(), { rows: 2, blobs: 2 });
  assert.equal(await asSystem(() => sweepArtifacts(t.s.ctx)), 0, "nothing has expired yet");
  assert.equal((await t.s.fetchFile(doc.url)).status, 200);

  writeFileSync(clockFile, String(3_600_001));
  try {
    const [x, y] = await asSystem(() => Promise.all([sweepArtifacts(t.s.ctx), sweepArtifacts(t.s.ctx)]));
    assert.ok(x + y >= 2, `swept ${x} + ${y} (this test's two and earlier tests' documents)`);
    assert.deepEqual(await counts(), { rows: 0, blobs: 0 }, "bytes and records gone");
  } finally {
    writeFileSync(clockFile, "0");
  }
  assert.equal((await t.s.fetchFile(doc.url)).status, 404, "a link of a swept document: gone");
});

test("a render over the size limit is refused (413)", async () => {
  const small = await startContent({ CONTENT_MAX_DOCUMENT_BYTES: "10000" });
  try {
    await assert.rejects(
      small.s.call("document.generate", { title: "Big", markdown: "word ".repeat(5000), format: "html" }),
      (err: any) => err.code === "payload_too_large" && /over the limit of 10000/.test(err.message),
    );
  } finally {
    await small.stop();
  }
});
