/**
 * guide.publish and guide.list: a guide written in the Guide Center format, the help centre built
 * and served over HTTP (the test fetches the returned URL and sees the guide), the product
 * allow-list (fail-closed), `deploy: false` only writing, updates, locales and index order, and
 * guide.list from the local manifest or a `publicUrl`.
 */
import { HARNESS_BASE_URL } from "@gantry/infra/testing/service.ts";
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { withTenant } from "@gantry/kit";
import { type ContentTest, startContent } from "../test/helpers.ts";

let t: ContentTest;
before(async () => {
  t = await startContent({ CONTENT_ALLOW_LOOPBACK: "true" });
});
after(async () => t?.stop());

const publisher = { tenant: "guide-co", products: ["clinic-desk"] };

const guide = {
  product: "clinic-desk",
  slug: "connect-payments",
  locale: "en",
  title: "Connect your payment account",
  area: "Billing",
  summary: "Take card payments from clients by connecting your payment account.",
  time: "5 min",
  cost: "Free",
  route: "/settings/payments",
  order: 2,
  markdown:
    "1. Open **Settings → Payments**.\n2. Click **Connect**.\n\n> Tip: use a business account.\n\n[x](javascript:alert(1))",
};

test("publish + deploy: the file in Guide Center format, the page live at the returned URL, the index", async () => {
  const r = await t.s.call("guide.publish", guide, publisher);
  assert.equal(r.action, "created");
  assert.equal(r.deployed, true);
  assert.ok(r.published);
  assert.equal(r.path, "en/connect-payments.md");
  assert.equal(r.helpCenterUrl, `${HARNESS_BASE_URL}/v1/files/content/help/guide-co/clinic-desk/`);
  assert.equal(r.url, `${r.helpCenterUrl}en/connect-payments.html`);

  const stored = await withTenant("guide-co", () => t.s.ctx.blobs.get("guide-co", `guides/clinic-desk/${r.path}`));
  const file = String(stored?.bytes);
  assert.match(
    file,
    /^---\nslug: "connect-payments"\nlocale: "en"\ntitle: "Connect your payment account"\narea: "Billing"\n/,
  );
  assert.match(file, /\norder: 2\n/);
  assert.match(file, /\n---\n\n1\. Open \*\*Settings → Payments\*\*\./);

  const page = await t.s.fetchFile(r.url);
  assert.equal(page.status, 200);
  assert.match(String(page.headers.get("content-type")), /text\/html/);
  const html = await page.text();
  assert.match(html, /<h1>Connect your payment account<\/h1>/);
  assert.match(html, /<strong>Settings → Payments<\/strong>/);
  assert.match(html, /Tip: use a business account/);
  assert.match(html, /5 min · Free · In the app: \/settings\/payments/);
  assert.ok(!/javascript:/i.test(html));

  await t.s.call("guide.publish", { ...guide, slug: "refunds", title: "Refund a payment", order: 1 }, publisher);
  await t.s.call(
    "guide.publish",
    { ...guide, slug: "sign-in", title: "Sign in", area: "Account", order: undefined },
    publisher,
  );
  await t.s.call(
    "guide.publish",
    { ...guide, locale: "pt-BR", title: "Conecte sua conta de pagamento", markdown: "Passos." },
    publisher,
  );
  const index = await (await t.s.fetchFile(r.helpCenterUrl)).text();
  const order = ["Sign in", "Refund a payment", "Connect your payment account"].map((s) => index.indexOf(s));
  assert.ok(order.every((i) => i > 0) && order[0] < order[1] && order[1] < order[2], "by area, then order");
  assert.equal((await t.s.fetchFile(`${r.helpCenterUrl}pt-BR/connect-payments.html`)).status, 200);
  assert.equal((await t.s.fetchFile(`${r.helpCenterUrl}../../other/x`)).status, 404);

  const listed = await t.s.call("guide.list", { product: "clinic-desk" }, { tenant: "guide-co" });
  assert.equal(listed.helpCenterUrl, r.helpCenterUrl);
  assert.ok(listed.generated);
  assert.deepEqual(
    listed.guides.map((g: any) => [g.area, g.order, g.title, g.locale]),
    [
      ["Account", null, "Sign in", "en"],
      ["Billing", 1, "Refund a payment", "en"],
      ["Billing", 2, "Conecte sua conta de pagamento", "pt-BR"],
      ["Billing", 2, "Connect your payment account", "en"],
    ],
  );
  const en = await t.s.call("guide.list", { product: "clinic-desk", locale: "en" }, { tenant: "guide-co" });
  assert.equal(en.guides.length, 3);
  const first = en.guides.find((g: any) => g.slug === "connect-payments");
  assert.equal(first.url, r.url);
  assert.equal(first.summary, guide.summary);
  assert.equal(first.time, "5 min");

  // Through a public URL: the help centre as a host would serve it (the manifest over real HTTP).
  const manifest = Buffer.from(await (await t.s.fetchFile(`${r.helpCenterUrl}manifest.json`)).arrayBuffer());
  const host = createServer((req, res) => {
    if (req.url === "/help/manifest.json") res.writeHead(200, { "content-type": "application/json" }).end(manifest);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => host.listen(0, "127.0.0.1", resolve));
  try {
    const publicUrl = `http://127.0.0.1:${(host.address() as AddressInfo).port}/help/`;
    const remote = await t.s.call("guide.list", { product: "clinic-desk", locale: "en", publicUrl });
    assert.deepEqual(remote.guides, en.guides);
  } finally {
    host.close();
  }

  // Another tenant has no guides for the same product name.
  const other = await t.s.call("guide.list", { product: "clinic-desk" }, { tenant: "other-co" });
  assert.deepEqual(other.guides, []);
});

test("deploy: false only writes; the next deploy makes it live; republishing updates", async () => {
  const p = { ...guide, product: "clinic-desk", slug: "draft", title: "Draft guide", deploy: false };
  const r = await t.s.call("guide.publish", p, publisher);
  assert.equal(r.deployed, false);
  assert.equal(r.published, null);
  assert.equal((await t.s.fetchFile(r.url)).status, 404);
  const again = await t.s.call("guide.publish", { ...p, title: "Draft guide v2", deploy: true }, publisher);
  assert.equal(again.action, "updated");
  assert.notEqual(again.sha256, r.sha256);
  assert.match(await (await t.s.fetchFile(again.url)).text(), /Draft guide v2/);
});

test("the product allow-list is fail-closed", async () => {
  for (const products of [[], ["other-product"]]) {
    await assert.rejects(t.s.call("guide.publish", guide, { tenant: "guide-co", products }), (err: any) => {
      assert.equal(err.code, "forbidden");
      assert.deepEqual(err.details[0], {
        path: "/input/product",
        message: "/input/product is not on the key's product allow-list",
        code: "product_not_allowed",
      });
      return true;
    });
  }
  await assert.rejects(
    t.s.call("guide.list", { product: "clinic-desk", publicUrl: "http://10.0.0.1/help/" }),
    (err: any) =>
      err.code === "validation_failed" &&
      err.details[0].path === "/input/publicUrl" &&
      err.details[0].code === "url_refused",
  );
});
