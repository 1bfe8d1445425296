/**
 * @module kit/blob/contract
 * The behaviour every blob driver must have, as one suite each driver's test runs against a real
 * server (postgres.test.ts, s3.test.ts): what a service storing files, and a user downloading them,
 * would observe.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { asSystem, withTenant } from "../tenancy.ts";
import type { BlobStore } from "./store.ts";

export interface ContractSubject {
  store: () => BlobStore;
  /** Moves the store's clock forward. */
  advance: (ms: number) => void;
  /** The store's clock now. */
  now: () => number;
}

export function blobContract(name: string, s: ContractSubject): void {
  const as = <T>(tenant: string, fn: (b: BlobStore) => Promise<T>) => withTenant(tenant, () => fn(s.store()));
  const bytes = (text: string) => Buffer.from(text, "utf8");

  test(`${name}: put then get answers the same bytes and content type; stat without the bytes`, async () => {
    const pdf = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0x80, 0x0a]);
    await as("acme", (b) => b.put("acme", "artifacts/art_1.pdf", pdf, { contentType: "application/pdf" }));
    const got = await as("acme", (b) => b.get("acme", "artifacts/art_1.pdf"));
    assert.ok(got);
    assert.deepEqual(got.bytes, pdf);
    assert.equal(got.contentType, "application/pdf");
    assert.equal(got.size, pdf.length);
    assert.equal(got.expires, null);
    assert.deepEqual(await as("acme", (b) => b.stat("acme", "artifacts/art_1.pdf")), {
      key: "artifacts/art_1.pdf",
      size: pdf.length,
      contentType: "application/pdf",
      expires: null,
    });
    assert.equal(await as("acme", (b) => b.get("acme", "artifacts/none.pdf")), null);
    assert.equal(await as("acme", (b) => b.stat("acme", "artifacts/none.pdf")), null);
  });

  test(`${name}: a put replaces the blob; delete removes it and deleting again is fine`, async () => {
    await as("acme", (b) => b.put("acme", "x/one.txt", bytes("first"), { contentType: "text/plain" }));
    await as("acme", (b) => b.put("acme", "x/one.txt", bytes("second, longer")));
    const got = await as("acme", (b) => b.get("acme", "x/one.txt"));
    assert.equal(got?.bytes.toString(), "second, longer");
    assert.equal(got?.contentType, "application/octet-stream");
    await as("acme", (b) => b.delete("acme", "x/one.txt"));
    assert.equal(await as("acme", (b) => b.get("acme", "x/one.txt")), null);
    await as("acme", (b) => b.delete("acme", "x/one.txt"));
  });

  test(`${name}: a 5 MB blob comes back byte for byte`, async () => {
    const big = Buffer.alloc(5 * 1024 * 1024);
    for (let i = 0; i < big.length; i += 4) big.writeUInt32LE((i * 2654435761) >>> 0, i);
    await as("acme", (b) => b.put("acme", "big/blob.bin", big));
    const got = await as("acme", (b) => b.get("acme", "big/blob.bin"));
    assert.equal(got?.size, big.length);
    assert.ok(got?.bytes.equals(big));
    await as("acme", (b) => b.delete("acme", "big/blob.bin"));
  });

  test(`${name}: list by prefix in key order, then delete by prefix`, async () => {
    for (const k of ["help/p1/b/en/z.html", "help/p1/b/en/a.html", "help/p1/b/index.html", "help/p10/index.html"])
      await as("acme", (b) => b.put("acme", k, bytes(k)));
    assert.deepEqual(
      (await as("acme", (b) => b.list("acme", "help/p1/"))).map((e) => e.key),
      ["help/p1/b/en/a.html", "help/p1/b/en/z.html", "help/p1/b/index.html"],
    );
    assert.deepEqual(await as("acme", (b) => b.list("acme", "help/p1/b/en/a")), [
      { key: "help/p1/b/en/a.html", size: "help/p1/b/en/a.html".length },
    ]);
    assert.equal(await as("acme", (b) => b.deletePrefix("acme", "help/p1/")), 3);
    assert.deepEqual(
      (await as("acme", (b) => b.list("acme", "help/"))).map((e) => e.key),
      ["help/p10/index.html"],
    );
    await as("acme", (b) => b.deletePrefix("acme", "help/"));
  });

  test(`${name}: tenants are apart: same key, different bytes; a call cannot reach another tenant`, async () => {
    await as("acme", (b) => b.put("acme", "skills/s/SKILL.md", bytes("acme's")));
    await as("beta", (b) => b.put("beta", "skills/s/SKILL.md", bytes("beta's")));
    await as("acme/shop1", (b) => b.put("acme/shop1", "skills/s/SKILL.md", bytes("shop's")));
    assert.equal((await as("beta", (b) => b.get("beta", "skills/s/SKILL.md")))?.bytes.toString(), "beta's");
    assert.equal((await as("acme", (b) => b.get("acme", "skills/s/SKILL.md")))?.bytes.toString(), "acme's");
    assert.deepEqual(
      (await as("acme", (b) => b.list("acme", "skills/"))).map((e) => e.key),
      ["skills/s/SKILL.md"],
      "a sub-tenant's blobs are not listed as the parent's own",
    );
    assert.equal(
      (await as("acme", (b) => b.get("acme/shop1", "skills/s/SKILL.md")))?.bytes.toString(),
      "shop's",
      "a parent reaches its sub-tenant's blobs, as with every tenant table",
    );
    await assert.rejects(() => as("beta", (b) => b.get("acme", "skills/s/SKILL.md")), /own tenant/);
    await assert.rejects(() => as("beta", (b) => b.put("acme", "skills/s/SKILL.md", bytes("x"))), /own tenant/);
    await assert.rejects(() => s.store().get("acme", "skills/s/SKILL.md"), /outside a tenant or system scope/);
    assert.equal((await asSystem(() => s.store().get("acme", "skills/s/SKILL.md")))?.bytes.toString(), "acme's");
    for (const t of ["acme", "beta", "acme/shop1"]) await as(t, (b) => b.deletePrefix(t, "skills/"));
  });

  test(`${name}: keys that are not ours are refused`, async () => {
    for (const k of ["", "/abs", "a/../b", "a//b", "a b", "../x", "x/./y", "é"])
      await assert.rejects(() => as("acme", (b) => b.put("acme", k, bytes("x"))), /invalid blob key/, k);
  });

  test(`${name}: deleting a blob that is not there (another replica was first) succeeds`, async () => {
    await as("acme", (b) => b.delete("acme", "tmp/never-written.html"));
    await as("acme", (b) => b.put("acme", "tmp/twice.html", bytes("x")));
    await Promise.all([
      as("acme", (b) => b.delete("acme", "tmp/twice.html")),
      as("acme", (b) => b.delete("acme", "tmp/twice.html")),
    ]);
    assert.equal(await as("acme", (b) => b.get("acme", "tmp/twice.html")), null);
  });

  test(`${name}: an expired blob is not served, and the sweep deletes it (and only it)`, async () => {
    const t0 = s.now();
    await as("acme", (b) => b.put("acme", "tmp/soon.html", bytes("soon"), { expires: t0 + 60_000 }));
    await as("beta", (b) => b.put("beta", "tmp/later.html", bytes("later"), { expires: t0 + 3_600_000 }));
    await as("beta", (b) => b.put("beta", "tmp/kept.html", bytes("kept")));
    // Put again with a later expiry: its first expiry must not delete it.
    await as("acme", (b) => b.put("acme", "tmp/moved.html", bytes("moved"), { expires: t0 + 60_000 }));
    await as("acme", (b) => b.put("acme", "tmp/moved.html", bytes("moved"), { expires: t0 + 7_200_000 }));
    assert.equal((await as("acme", (b) => b.stat("acme", "tmp/soon.html")))?.expires, t0 + 60_000);

    s.advance(120_000);
    assert.equal(await as("acme", (b) => b.get("acme", "tmp/soon.html")), null, "expired: not served");
    assert.equal(await as("acme", (b) => b.stat("acme", "tmp/soon.html")), null);
    await assert.rejects(() => withTenant("acme", () => s.store().sweep()), /system scope/);
    const [first, second] = await asSystem(() => Promise.all([s.store().sweep(), s.store().sweep()]));
    // Replicas sweep at once: both finish, and between them they found the one expired blob (S3
    // cannot tell two deletes of one key apart, so each may count it).
    assert.ok(first + second >= 1 && first <= 1 && second <= 1, `swept ${first} + ${second}`);
    assert.equal(await asSystem(() => s.store().sweep()), 0);
    assert.deepEqual(
      (await as("acme", (b) => b.list("acme", "tmp/"))).map((e) => e.key),
      ["tmp/moved.html"],
      "the expired blob is gone from the store, the re-put one stays",
    );
    assert.equal((await as("beta", (b) => b.get("beta", "tmp/later.html")))?.bytes.toString(), "later");
    assert.equal((await as("beta", (b) => b.get("beta", "tmp/kept.html")))?.bytes.toString(), "kept");

    s.advance(7_200_000);
    assert.equal(await asSystem(() => s.store().sweep()), 2);
    assert.deepEqual(await as("beta", (b) => b.list("beta", "tmp/")), [{ key: "tmp/kept.html", size: 4 }]);
    assert.deepEqual(await as("acme", (b) => b.list("acme", "tmp/")), []);
    await as("beta", (b) => b.delete("beta", "tmp/kept.html"));
  });
}
