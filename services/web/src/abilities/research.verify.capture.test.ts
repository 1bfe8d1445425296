/**
 * research.verify, action `capture`: only registered official pages (per tenant, and `*` for all),
 * captures stored per tenant, the previous capture and a unified diff when the page changed, focus
 * passages as observations with offsets and hashes, and nothing stored when a page cannot be read.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { startService, type ServiceHarness } from "../../../../infra/testing/service.ts";
import type { Context } from "../context.ts";

/** An official site whose rate page the test edits between captures. */
let rate = "7.5";
let official: http.Server;
let base = "";
let s: ServiceHarness<Context>;
before(async () => {
  official = http.createServer((req, res) => {
    if (req.url === "/robots.txt") return res.end("User-agent: *\nDisallow: /internal/\n");
    if (req.url === "/tax/vat") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      return res.end(`<!doctype html><html lang="en"><head><title>VAT rates</title></head><body><main>
<h1>Value added tax</h1>
<p>The standard VAT rate is ${rate} percent and applies to most goods and services, including digital services
supplied to consumers.</p>
<p>Exports and basic food items are zero-rated.</p>
<p>Returns are filed monthly, by the 21st day of the following month.</p>
</main></body></html>`);
    }
    if (req.url === "/tax/gone") {
      res.writeHead(200, { "content-type": "application/pdf" });
      return res.end("%PDF-1.4");
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => official.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(official.address() as AddressInfo).port}`;
  s = await startService<Context>("web", {
    WEB_ALLOW_LOOPBACK: "true",
    WEB_OFFICIAL_PAGES: JSON.stringify({ "*": [`${base}/tax/`], acme: [`${base}/about`] }),
    LOG_LEVEL: "fatal",
  });
});
after(async () => {
  await s?.stop();
  official?.closeAllConnections();
  official?.close();
});

describe("research.verify capture", () => {
  test("first capture: text, hash, focus observations; no previous", async () => {
    const r = await s.call("research.verify", {
      action: "capture",
      urls: [`${base}/tax/vat`],
      focus: "standard VAT rate digital services",
    });
    assert.equal(r.action, "capture");
    const [c] = r.captures;
    assert.match(c.id, /^cap_/);
    assert.equal(c.url, `${base}/tax/vat`);
    assert.equal(c.status, 200);
    assert.match(c.text, /standard VAT rate is 7\.5 percent/);
    assert.equal(c.contentSha256, createHash("sha256").update(c.text).digest("hex"));
    assert.equal(c.previous, null);
    assert.equal(c.changed, null);
    assert.equal(c.screenshot.contentType, "image/png");
    assert.equal(c.screenshot.width, 1366);
    assert.equal(c.diff, null);
    assert.ok(c.observations.length > 0);
    const o = c.observations[0];
    assert.match(o.quote, /standard VAT rate is 7\.5 percent/);
    assert.equal(c.text.slice(o.start, o.end), o.quote);
    assert.equal(o.contentSha256, c.contentSha256);
  });

  test("re-capture: unchanged, then changed with a diff against the previous capture; per tenant", async () => {
    const again = (tenant = "acme") =>
      s.call("research.verify", { action: "capture", urls: [`${base}/tax/vat`] }, { tenant });
    const first = (await s.db.query(`SELECT id FROM web.captures WHERE tenant = 'acme' ORDER BY captured_at`)).rows;
    const same = (await again()).captures[0];
    assert.equal(same.changed, false);
    assert.equal(same.diff, null);
    assert.equal(same.previous.id, first.at(-1).id);
    assert.deepEqual(same.observations, []); // no focus

    rate = "10";
    const changed = (await again()).captures[0];
    assert.equal(changed.changed, true);
    assert.equal(changed.previous.id, same.id);
    assert.equal(changed.previous.contentSha256, same.contentSha256);
    assert.match(changed.diff, /^--- cap_/);
    assert.match(changed.diff, /^-The standard VAT rate is 7\.5 percent/m);
    assert.match(changed.diff, /^\+The standard VAT rate is 10 percent/m);

    // Another tenant has no history of this page: its first capture has no previous.
    const beta = (await again("beta")).captures[0];
    assert.equal(beta.previous, null);
    const rows = await s.db.query(
      `SELECT tenant, count(*)::int AS n FROM web.captures GROUP BY tenant ORDER BY tenant`,
    );
    assert.deepEqual(rows.rows, [
      { tenant: "acme", n: 3 },
      { tenant: "beta", n: 1 },
    ]);
  });

  test("the registry: unregistered pages refused before any fetch, tenant entries apply to that tenant only", async () => {
    const refused = async (urls: string[], tenant = "acme") => {
      try {
        await s.call("research.verify", { action: "capture", urls }, { tenant });
      } catch (err) {
        return err as { code: string; details?: { path: string; code: string }[] };
      }
      assert.fail("expected a refusal");
    };
    const e = await refused([`${base}/tax/vat`, "https://example.org/tax/vat"]);
    assert.equal(e.code, "validation_failed");
    assert.deepEqual(e.details?.[0], {
      path: "/input/urls/1",
      message: "not a registered official page",
      code: "not_registered",
    });
    assert.equal((await refused([`${base}/about`], "beta")).details?.[0]?.code, "not_registered");
    assert.equal((await refused([`${base}/taxes`])).details?.[0]?.code, "not_registered"); // prefix on a path boundary
  });

  test("a page that cannot be read fails the call naming the URL; nothing is stored", async () => {
    const before = (await s.db.query(`SELECT count(*)::int AS n FROM web.captures`)).rows[0].n;
    await assert.rejects(
      s.call("research.verify", { action: "capture", urls: [`${base}/tax/vat`, `${base}/tax/gone`] }),
      (e: { code: string; message: string }) => {
        assert.equal(e.code, "upstream_failed");
        assert.match(e.message, /application\/pdf/);
        return true;
      },
    );
    assert.equal((await s.db.query(`SELECT count(*)::int AS n FROM web.captures`)).rows[0].n, before);
  });
});
