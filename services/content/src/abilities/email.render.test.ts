/**
 * email.render: the three templates render to a complete HTML document with inlined CSS and the
 * theme, plus a plain-text part; the same input gives byte-equal output; invoice and receipt totals
 * are computed in minor units; bad props are refused naming the field.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { type ContentTest, startContent } from "../test/helpers.ts";

let t: ContentTest;
before(async () => {
  t = await startContent();
});
after(async () => t?.stop());

const theme = {
  brandColor: "#1e3a5f",
  accentColor: "#c2410c",
  firmName: "Northwind Studio",
  tagline: "Websites that work",
  siteUrl: "https://northwind.example",
  logoUrl: "https://northwind.example/logo.png",
};

const invoice = {
  spec: {
    template: "invoice",
    subject: "Invoice INV-2026-0042 from Northwind Studio",
    props: {
      invoiceNumber: "INV-2026-0042",
      issueDate: "2026-05-01",
      dueDate: "2026-05-15",
      customerName: "Contoso <Ltd>",
      customerEmail: "billing@contoso.example",
      currency: "USD",
      items: [
        { description: "Website care plan, May", quantity: 1, unitAmount: 49.99 },
        { description: "Design hours", quantity: 2.5, unitAmount: 80.01 },
      ],
      taxRate: 7.5,
      payUrl: "https://pay.example.com/l/inv-2026-0042",
    },
  },
  theme,
};

test("invoice: totals in minor units, theme applied, CSS inlined, text part, deterministic", async () => {
  const a = await t.s.call("email.render", invoice);
  // 49.99 + 2.5 × 80.01 = 49.99 + 200.025 → 200.03 (half-up per line) = 250.02; tax 7.5% = 18.7515 → 18.75.
  assert.deepEqual(a.totals, {
    subtotal: { amount: 250.02, currency: "USD", minor: 25002 },
    tax: { amount: 18.75, currency: "USD", minor: 1875 },
    total: { amount: 268.77, currency: "USD", minor: 26877 },
  });
  assert.match(a.html, /^<!doctype html>/i);
  assert.match(a.html, /<title>Invoice INV-2026-0042 from Northwind Studio<\/title>/);
  assert.match(a.html, /background-color:#1e3a5f|background:#1e3a5f/i, "brand colour in the header");
  assert.match(a.html, /src="https:\/\/northwind\.example\/logo\.png"/);
  assert.match(a.html, /Websites that work/);
  assert.match(a.html, /href="https:\/\/pay\.example\.com\/l\/inv-2026-0042"/);
  assert.match(a.html, /Pay \$268\.77/);
  assert.match(a.html, /Contoso &lt;Ltd&gt;/, "props are escaped");
  assert.ok(!a.html.includes("Contoso <Ltd>"));
  // CSS of the line table is inlined onto the cells (MJML inline styles), not left in a <style> only.
  assert.match(a.html, /<th[^>]*style="[^"]*border-bottom: 2px solid #1e3a5f/);
  assert.match(a.text, /Invoice INV-2026-0042/);
  assert.match(a.text, /Design hours: 2\.5 × \$80\.01 = \$200\.03/);
  assert.match(a.text, /Total due: \$268\.77/);
  assert.match(a.text, /Due: 15 May 2026/);
  assert.match(a.text, /Pay online: https:\/\/pay\.example\.com\/l\/inv-2026-0042/);
  assert.equal(a.sha256, createHash("sha256").update(a.html).digest("hex"));

  const b = await t.s.call("email.render", invoice);
  assert.equal(b.html, a.html, "same input, byte-equal HTML");
  assert.equal(b.text, a.text);
  assert.equal(b.sha256, a.sha256);

  const other = await t.s.call("email.render", { ...invoice, theme: { ...theme, brandColor: "#0a7d32" } });
  assert.notEqual(other.sha256, a.sha256);
  assert.match(other.html, /#0a7d32/);
});

test("receipt: total paid from items, no tax; zero-decimal currency", async () => {
  const r = await t.s.call("email.render", {
    spec: {
      template: "receipt",
      subject: "Your receipt",
      props: {
        receiptNumber: "R-7",
        paidAt: "2026-05-02T14:03:00Z",
        customerName: "Ada",
        currency: "JPY",
        items: [{ description: "Tea", quantity: 3, unitAmount: 450 }],
        paymentMethod: "Visa •••• 4242",
      },
    },
  });
  assert.deepEqual(r.totals, {
    subtotal: { amount: 1350, currency: "JPY", minor: 1350 },
    tax: null,
    total: { amount: 1350, currency: "JPY", minor: 1350 },
  });
  assert.match(r.text, /Paid: 2 May 2026 at 14:03 UTC/);
  assert.match(r.text, /Total paid: ¥1,350/);
  assert.match(r.html, /Visa •••• 4242/);
  assert.match(r.html, /#1e3a5f/, "Gantry's neutral default theme without one");
});

test("notice: paragraphs, escaped body, action button, footer; totals null", async () => {
  const n = await t.s.call("email.render", {
    spec: {
      template: "notice",
      subject: "Maintenance",
      props: {
        heading: "Planned maintenance",
        body: "We upgrade on Sunday.\n\nExpect <5 minutes> of downtime.",
        actionLabel: "See status",
        actionUrl: "https://status.example.com",
        footer: "You get this because you are a customer.",
      },
    },
    theme: { firmName: "Acme" },
  });
  assert.equal(n.totals, null);
  assert.match(n.html, /<p>We upgrade on Sunday\.<\/p>/);
  assert.match(n.html, /Expect &lt;5 minutes&gt; of downtime/);
  assert.match(n.html, /href="https:\/\/status\.example\.com\/?"/);
  assert.match(n.text, /^Acme\n\nPlanned maintenance\n\nWe upgrade on Sunday\./);
  assert.match(n.text, /See status: https:\/\/status\.example\.com/);
});

test("bad props are refused naming the field", async () => {
  const missing = { spec: { template: "invoice", subject: "x", props: { invoiceNumber: "1" } } };
  await assert.rejects(t.s.call("email.render", missing), (err: any) => {
    assert.equal(err.code, "validation_failed");
    assert.ok(
      err.details.some((d: any) => d.path.startsWith("/input/spec/props")),
      JSON.stringify(err.details),
    );
    return true;
  });
  await assert.rejects(
    t.s.call("email.render", { spec: { template: "letter", subject: "x", props: {} } }),
    (err: any) => err.code === "validation_failed" && err.details.some((d: any) => d.path === "/input/spec/template"),
  );
  await assert.rejects(
    t.s.call("email.render", {
      spec: { template: "notice", subject: "x", props: { heading: "h", body: "b", actionLabel: "Go" } },
    }),
    { code: "validation_failed" },
  );
  const precision = structuredClone(invoice);
  precision.spec.props.items[0].unitAmount = 49.999;
  await assert.rejects(t.s.call("email.render", precision), (err: any) => {
    assert.equal(err.code, "validation_failed");
    assert.deepEqual(
      err.details.map((d: any) => [d.path, d.code]),
      [["/input/spec/props/items/0/unitAmount", "currency_precision"]],
    );
    return true;
  });
  const currency = structuredClone(invoice);
  currency.spec.props.currency = "XYZ";
  await assert.rejects(t.s.call("email.render", currency), (err: any) => err.details[0].code === "unknown_currency");
});
