/**
 * The PDF renderer gives Chromium back between bursts: once no render has run for its idle time the
 * browser's processes are gone, and the next render starts a browser again and still prints.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { eventually } from "@gantry/infra/testing/stack.ts";
import { processTrees } from "@gantry/infra/testing/process-tree.ts";
import { PdfRenderer } from "./pdf.ts";

const CHROMIUM = process.env.CONTENT_CHROMIUM_PATH ?? "/usr/bin/chromium";
const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (set CONTENT_CHROMIUM_PATH)`;

/** Chromium processes under this test process (by their executable's name). */
function chromiumRunning(): boolean {
  return processTrees([process.pid]).some((pid) => {
    try {
      return /chrom/i.test(readFileSync(`/proc/${pid}/comm`, "utf8"));
    } catch {
      return false;
    }
  });
}

test("Chromium is ended after the idle time and started again by the next render", { skip }, async () => {
  const pdf = new PdfRenderer(CHROMIUM, 30_000, 300);
  try {
    const first = await pdf.render("<!doctype html><title>One</title><p>First page</p>");
    assert.equal(first.pages, 1);
    await eventually(async () => !chromiumRunning(), 10_000, 100); // throws when Chromium still runs
    const second = await pdf.render("<!doctype html><title>Two</title><p>Second page</p>");
    assert.equal(second.pages, 1);
    assert.match(second.pdf.subarray(0, 5).toString("latin1"), /^%PDF-/);
  } finally {
    await pdf.close();
  }
});
