/**
 * contact.list's keyset pages on the one-service harness (real Postgres under the service's own
 * login and row-level security): a page deep in a long list holds exactly the contacts after its
 * cursor, contacts created in the same millisecond are neither repeated nor skipped across pages,
 * and a page halfway down 20,000 contacts reads about a page of index entries, not the 10,000
 * before it (issue 30: the kit's afterCursor once filtered where it should have sought, so such a
 * page cost as much as every row above it).
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { encodeCursor } from "@gantry/kit";
import { startService, type ServiceHarness } from "@gantry/infra/testing/service.ts";
import type { Context } from "../context.ts";

let s: ServiceHarness<Context>;
const N = 20_000;
const T0 = Date.UTC(2024, 0, 1);
const idOf = (g: number) => `ctc_deep${String(g).padStart(6, "0")}`;
/** The cursor of a page whose last contact is contact g (created g seconds after T0). */
const cursorAt = (g: number) => encodeCursor({ c: T0 + g * 1000, i: idOf(g) });

before(async () => {
  s = await startService<Context>("workspace");
  for (const [tenant, prefix] of [
    ["deep", "ctc_deep"],
    ["other", "ctc_othr"],
  ])
    await s.db.query(
      `INSERT INTO workspace.contacts (id, tenant, name, created_at, updated_at)
       SELECT $2 || lpad(g::text, 6, '0'), $1, 'Contact ' || g, to_timestamp(($3::float8 + g * 1000) / 1000), now()
         FROM generate_series(0, $4::int - 1) g`,
      [tenant, prefix, T0, N],
    );
  await s.db.query("ANALYZE workspace.contacts");
});
after(async () => s?.stop());

/** idx_scan and idx_tup_read of the contacts' (tenant, created_at, id) index, as the statistics hold them now. */
async function indexReads(): Promise<{ scans: number; read: number }> {
  const { rows } = await s.db.query<{ scans: string; read: string }>(
    `SELECT idx_scan AS scans, idx_tup_read AS read FROM pg_stat_user_indexes
      WHERE schemaname = 'workspace' AND indexrelname = 'contacts_tenant_created_at_id_idx'`,
  );
  return { scans: Number(rows[0]!.scans), read: Number(rows[0]!.read) };
}

/**
 * The index counters once they count a scan more than `since` did: a backend reports its counters
 * when it goes idle, at most once a second (after 10 s when busy).
 */
async function afterScan(since: { scans: number }): Promise<{ scans: number; read: number }> {
  let now = await indexReads();
  for (const until = Date.now() + 20_000; now.scans <= since.scans && Date.now() < until; ) {
    await new Promise((r) => setTimeout(r, 250));
    now = await indexReads();
  }
  assert.ok(now.scans > since.scans, "the page's index scan was counted");
  return now;
}

test("a page halfway down 20,000 contacts holds the 20 after its cursor and reads about a page of the index", async () => {
  const start = await indexReads();
  await s.call("contact.list", { limit: 20 }, { tenant: "deep" }); // plans and connections warm
  const before = await afterScan(start);
  const page = await s.call("contact.list", { limit: 20, cursor: cursorAt(N / 2) }, { tenant: "deep" });
  assert.deepEqual(
    page.items.map((c: { id: string }) => c.id),
    Array.from({ length: 20 }, (_, k) => idOf(N / 2 - 1 - k)),
  );
  assert.ok(page.nextCursor);
  const now = await afterScan(before);
  assert.ok(now.read - before.read <= 200, `the page read ${now.read - before.read} index entries`);
});

test("contacts created in the same millisecond page through without repeats or gaps", async () => {
  const at = new Date(Date.UTC(2030, 0, 1));
  const ids = ["ctc_tie_a", "ctc_tie_b", "ctc_tie_c", "ctc_tie_d", "ctc_tie_e"];
  await s.db.query(
    `INSERT INTO workspace.contacts (id, tenant, name, created_at, updated_at)
     SELECT id, 'ties', 'Tie', $2, $2 FROM unnest($1::text[]) id`,
    [ids, at],
  );
  const seen: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await s.call("contact.list", { limit: 2, ...(cursor ? { cursor } : {}) }, { tenant: "ties" });
    seen.push(...page.items.map((c: { id: string }) => c.id));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  assert.deepEqual(seen, [...ids].reverse());
});
