/**
 * @module bench/lib/scale-contacts
 * The `contacts` part of `npm run bench -- --scale`: `contact.list` pages of one tenant holding n
 * contacts. The workspace service runs in this process on the one-service harness (real Postgres, its
 * own login under row-level security) and every sample is a real `contact.list` call over gRPC
 * (validation, tenant scope, the handler and its Prisma query; no gateway): the first page, and a
 * deep page whose keyset cursor points near the end of the list (the oldest contacts), which
 * an offset scheme would pay for with every row before it.
 *
 * Seeding is bulk SQL into `workspace.contacts`, one creation time per contact a second apart; each
 * size tops up the rows the previous one left. Another tenant holds as many contacts again, so
 * the tenant's rows are not the whole table.
 */
import type pg from "pg";
import { encodeCursor } from "@gantry/kit";
import { startService } from "../../infra/testing/service.ts";
import type { ScaleCurve, ScaleOptions, ScalePoint } from "./scale-curve.ts";
import { timeSamples } from "./scale-timing.ts";

const TENANT = "bench-scale-contacts";
const OTHER = "bench-scale-other";
const LIMIT = 20;
const SAMPLES = 200;
const WARMUP = 30;
const SEED_CHUNK = 200_000;

/** Contacts [from, to) of `tenant`: contact g was created g seconds after 2024-01-01. */
async function seedContacts(db: pg.Pool, tenant: string, from: number, to: number): Promise<void> {
  for (let start = from; start < to; start += SEED_CHUNK)
    await db.query(
      `INSERT INTO workspace.contacts (id, tenant, name, email, company, metadata, created_at, updated_at)
       SELECT $4 || lpad(g::text, 10, '0'), $1, 'Contact ' || g, 'contact' || g || '@example.com', 'Company ' || (g % 997),
              jsonb_build_object('n', g), timestamptz '2024-01-01 00:00:00+00' + g * interval '1 second',
              timestamptz '2024-01-01 00:00:00+00' + g * interval '1 second'
         FROM generate_series($2::int, $3::int - 1) g`,
      [tenant, start, Math.min(to, start + SEED_CHUNK), tenant === TENANT ? "ctc_s" : "ctc_o"],
    );
  await db.query(`ANALYZE workspace.contacts`);
}

async function countOf(db: pg.Pool, tenant: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM workspace.contacts WHERE tenant = $1`,
    [tenant],
  );
  return rows[0]!.n;
}

/** The cursor a page ending at contact g hands out (kit/src/data/pagination.ts, NEWEST_FIRST). */
const cursorAt = (g: number) =>
  encodeCursor({ c: Date.UTC(2024, 0, 1) + g * 1000, i: `ctc_s${String(g).padStart(10, "0")}` });

export async function contactsScale(opts: ScaleOptions): Promise<ScaleCurve[]> {
  const s = await startService("workspace");
  const first: ScalePoint[] = [];
  const deep: ScalePoint[] = [];
  const middle: ScalePoint[] = [];
  try {
    const list = (input: { limit: number; cursor?: string }) => s.call("contact.list", input, { tenant: TENANT });
    for (const n of opts.sizes) {
      const have = await countOf(s.db, TENANT);
      const t = performance.now();
      await seedContacts(s.db, TENANT, have, n);
      await seedContacts(s.db, OTHER, await countOf(s.db, OTHER), n);
      const seedSec = (performance.now() - t) / 1000;
      opts.log(`contacts ${n}: seeded ${2 * Math.max(0, n - have)} contacts (two tenants) in ${seedSec.toFixed(1)} s`);
      // What a user would see: the newest first, and the deep page continuing from its cursor.
      const top = await list({ limit: LIMIT });
      if (top.items.length !== Math.min(LIMIT, n) || top.items[0].id !== `ctc_s${String(n - 1).padStart(10, "0")}`)
        throw new Error(`contact.list's first page at ${n} contacts starts with ${top.items[0]?.id}`);
      const end = await list({ limit: LIMIT, cursor: cursorAt(LIMIT) });
      if (end.items.length !== LIMIT || end.items[0].id !== `ctc_s${String(LIMIT - 1).padStart(10, "0")}`)
        throw new Error(`contact.list's page after contact ${LIMIT} starts with ${end.items[0]?.id}`);
      first.push(await timeSamples(n, "ms", SAMPLES, WARMUP, () => list({ limit: LIMIT }), { seedSec }));
      // Cursors among the oldest contacts: 20 to 20 + 2 pages' worth from the end.
      deep.push(
        await timeSamples(n, "ms", SAMPLES, WARMUP, (i) =>
          list({ limit: LIMIT, cursor: cursorAt(LIMIT + (i % Math.min(2 * LIMIT, Math.max(1, n - LIMIT)))) }),
        ),
      );
      // A cursor halfway down the list: n/2 contacts before it, n/2 after.
      middle.push(
        await timeSamples(n, "ms", SAMPLES, WARMUP, (i) =>
          list({ limit: LIMIT, cursor: cursorAt(Math.max(LIMIT, Math.floor(n / 2) - LIMIT + (i % (2 * LIMIT)))) }),
        ),
      );
      opts.log(
        `contacts ${n}: first page p50 ${first.at(-1)!.p50.toFixed(2)} ms, middle page ${middle.at(-1)!.p50.toFixed(2)} ms, deep page ${deep.at(-1)!.p50.toFixed(2)} ms`,
      );
    }
  } finally {
    await s.stop();
  }
  const how = `The workspace service in this process (one-service harness: real Postgres, its own login under row-level security); each sample is a \`contact.list\` call of ${LIMIT} contacts over gRPC (validation, tenant scope, handler, Prisma; no gateway). One tenant seeded in bulk SQL with n contacts a second apart, another tenant with as many.`;
  return [
    {
      id: "contact.list:first",
      label: "contact.list, first page",
      unit: "ms",
      note: `${how} First page (no cursor), newest first. ${SAMPLES} samples after ${WARMUP} untimed; \`seedSec\`: time to top both tenants up to this size.`,
      expected: "O(log n)",
      points: first,
    },
    {
      id: "contact.list:middle",
      label: "contact.list, middle page",
      unit: "ms",
      note: `${how} A keyset cursor halfway down the list (n/2 contacts newer than it, n/2 older), where an index scan that filters instead of seeking reads n/2 rows. ${SAMPLES} samples after ${WARMUP} untimed.`,
      expected: "O(log n)",
      points: middle,
    },
    {
      id: "contact.list:deep",
      label: "contact.list, deep page",
      unit: "ms",
      note: `${how} A keyset cursor among the ${LIMIT} to ${3 * LIMIT} oldest contacts: the last pages of the list, n − 60 rows deep. ${SAMPLES} samples after ${WARMUP} untimed.`,
      expected: "O(log n)",
      points: deep,
    },
  ];
}
