/**
 * The behavioural suite every vector store must pass (imported by `postgres.test.ts` and
 * `weaviate.test.ts`): the same scenarios, the same expected answers, so "the same behaviour on every
 * store" is a tested property rather than a hope. Timestamps are explicit (`now` on every save and
 * search), so recency is tested without sleeping.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { LexicalHashEmbedder } from "../embed/lexical.ts";
import { normalise, DIMENSIONS } from "../embed/types.ts";
import { matches, parseFilter, type Metadata } from "../filter.ts";
import { decay, ranksBefore, type SaveRequest, type VectorStore } from "./types.ts";

export interface StoreHarness {
  store: () => VectorStore;
}

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);
const embedder = new LexicalHashEmbedder();
const MODEL = embedder.model;

/** A collection name no other test uses. */
function freshCollection(label: string): string {
  return `${label}-${process.pid}-${randomBytes(6).toString("hex")}`;
}

async function vec(text: string, kind: "query" | "document" = "document"): Promise<Float32Array> {
  return (await embedder.embed([text], kind))[0];
}

/** A unit vector with cosine `c` to e0, the rest of its length on axis `axis`. */
function axisVector(c: number, axis: number): Float32Array {
  const v = new Float32Array(DIMENSIONS);
  v[0] = c;
  v[axis] = Math.sqrt(1 - c * c);
  return v;
}

function req(over: Partial<SaveRequest> & Pick<SaveRequest, "tenant" | "collection" | "text" | "vector">): SaveRequest {
  return {
    newId: `mem_${randomBytes(8).toString("hex")}`,
    model: MODEL,
    dimensions: DIMENSIONS,
    now: T0,
    dedupThreshold: 0.97,
    ...over,
  };
}

const CORPUS: Array<{ id: string; text: string; metadata: Metadata }> = [
  {
    id: "m-diet",
    text: "Biscuit the golden retriever is allergic to chicken; feed him the salmon kibble.",
    metadata: { kind: "vet", pet: "biscuit", age: 4 },
  },
  {
    id: "m-walk",
    text: "Rex needs two long walks a day and gets anxious during thunderstorms.",
    metadata: { kind: "care", pet: "rex", age: 7 },
  },
  {
    id: "m-invoice",
    text: "Invoices are sent on the first day of every month by the billing team.",
    metadata: { kind: "billing", priority: 2 },
  },
  {
    id: "m-vaccine",
    text: "Rex is due for his rabies vaccination booster in March.",
    metadata: { kind: "vet", pet: "rex", age: 7 },
  },
  {
    id: "m-deploy",
    text: "Always run the database migration before deploying the API servers.",
    metadata: { kind: "ops", priority: 1 },
  },
  {
    id: "m-wifi",
    text: "The office wifi password rotates every Monday morning.",
    metadata: { kind: "office", priority: "3" },
  },
];

export function storeSuite(name: string, h: StoreHarness): void {
  async function seed(tenant: string, collection: string, now = T0): Promise<void> {
    for (const m of CORPUS) {
      await h
        .store()
        .save(
          req({ tenant, collection, id: m.id, text: m.text, metadata: m.metadata, vector: await vec(m.text), now }),
        );
    }
  }

  async function search(
    tenant: string,
    collection: string,
    query: string,
    extra: { limit?: number; filter?: unknown; vertical?: string; now?: number; halfLifeMs?: number } = {},
  ) {
    return h.store().search(tenant, collection, await vec(query, "query"), {
      limit: extra.limit ?? 10,
      filter: parseFilter(extra.filter),
      vertical: extra.vertical,
      now: extra.now ?? T0,
      halfLifeMs: extra.halfLifeMs ?? 30 * DAY,
    });
  }

  describe(`${name} store`, () => {
    test("ranking: the right memory first for lexical queries (words, plurals, typos)", async () => {
      const c = freshCollection("rank");
      const t = `tenant-${c}`;
      await seed(t, c);
      const cases: Array<[string, string]> = [
        ["what food is Biscuit allergic to", "m-diet"],
        ["chiken allergy", "m-diet"],
        ["when does Rex get his rabies shot", "m-vaccine"],
        ["walks for rex", "m-walk"],
        ["when are invoices sent", "m-invoice"],
        ["deploy migrations", "m-deploy"],
        ["wifi password", "m-wifi"],
      ];
      for (const [query, expected] of cases) {
        const hits = await search(t, c, query);
        assert.equal(
          hits[0]?.id,
          expected,
          `${JSON.stringify(query)} → ${hits.map((x) => `${x.id}:${x.similarity.toFixed(3)}`).join(", ")}`,
        );
        assert.ok(hits[0].similarity > 0 && hits[0].similarity <= 1.000001);
        for (let i = 1; i < hits.length; i++) assert.ok(!ranksBefore(hits[i], hits[i - 1]), "hits are in rank order");
      }
    });

    test("hits carry text, metadata, times, similarity and score; limit is respected; unrelated memories are not returned", async () => {
      const c = freshCollection("shape");
      const t = `tenant-${c}`;
      await seed(t, c);
      const hits = await search(t, c, "Biscuit salmon kibble", { limit: 2 });
      assert.ok(hits.length <= 2 && hits.length >= 1);
      const top = hits[0];
      assert.equal(top.id, "m-diet");
      assert.equal(top.collection, c);
      assert.equal(top.text, CORPUS[0].text);
      assert.deepEqual(top.metadata, CORPUS[0].metadata);
      assert.equal(top.createdAt, T0);
      assert.equal(top.updatedAt, T0);
      assert.equal(top.model, MODEL);
      assert.ok(Math.abs(top.score - top.similarity) < 1e-6, "no decay at age 0");
      const none = await search(t, c, "zzzz qqqq");
      assert.ok(none.every((x) => x.similarity > 0));
    });

    test("recency decay: score = similarity × 0.5^(age / half-life)", async () => {
      const c = freshCollection("recency");
      // old: more similar (0.9) but 90 days old; fresh: less similar (0.5) and new.
      await h
        .store()
        .save(req({ tenant: "acme", collection: c, id: "old", text: "old", vector: axisVector(0.9, 2), now: T0 }));
      await h.store().save(
        req({
          tenant: "acme",
          collection: c,
          id: "fresh",
          text: "fresh",
          vector: axisVector(0.5, 3),
          now: T0 + 90 * DAY,
        }),
      );
      const at = T0 + 90 * DAY;
      const q0 = axisVector(1, 1);
      const decayed = await h.store().search("acme", c, q0, { limit: 5, now: at, halfLifeMs: 30 * DAY });
      assert.deepEqual(
        decayed.map((x) => x.id),
        ["fresh", "old"],
      );
      assert.ok(Math.abs(decayed[1].score - 0.9 * 0.125) < 1e-4, `old score ${decayed[1].score}`);
      assert.ok(Math.abs(decayed[0].score - 0.5) < 1e-4);
      const flat = await h.store().search("acme", c, q0, { limit: 5, now: at, halfLifeMs: 0 });
      assert.deepEqual(
        flat.map((x) => x.id),
        ["old", "fresh"],
        "without decay similarity decides",
      );
      assert.equal(decay(T0, T0 + 30 * DAY, 30 * DAY), 0.5);
    });

    test("filters: equality, $in, ranges, $ne/$nin (absent keys match), $and/$or, strict types", async () => {
      const c = freshCollection("filter");
      const t = `tenant-${c}`;
      await seed(t, c);
      const ids = async (filter: unknown) =>
        (await search(t, c, "rex biscuit invoices migration wifi walks rabies chicken", { filter, limit: 20 }))
          .map((x) => x.id)
          .sort();
      assert.deepEqual(await ids({ kind: "vet" }), ["m-diet", "m-vaccine"]);
      assert.deepEqual(await ids({ kind: { $eq: "vet" }, pet: "rex" }), ["m-vaccine"]);
      assert.deepEqual(await ids({ pet: { $in: ["rex", "biscuit"] } }), ["m-diet", "m-vaccine", "m-walk"]);
      assert.deepEqual(await ids({ age: { $gte: 5 } }), ["m-vaccine", "m-walk"]);
      assert.deepEqual(await ids({ age: { $gt: 4, $lt: 8 } }), ["m-vaccine", "m-walk"]);
      assert.deepEqual(
        await ids({ priority: { $lte: 2 } }),
        ["m-deploy", "m-invoice"],
        'the string "3" is not a number',
      );
      assert.deepEqual(await ids({ priority: "3" }), ["m-wifi"]);
      assert.deepEqual(await ids({ priority: 3 }), [], 'strict equality: 3 ≠ "3"');
      assert.deepEqual(await ids({ kind: { $ne: "vet" }, pet: { $nin: ["biscuit"] } }), [
        "m-deploy",
        "m-invoice",
        "m-walk",
        "m-wifi",
      ]);
      assert.deepEqual(await ids({ $or: [{ kind: "billing" }, { kind: "ops" }] }), ["m-deploy", "m-invoice"]);
      assert.deepEqual(await ids({ kind: "vet", $or: [{ pet: "biscuit" }, { age: { $gt: 100 } }] }), ["m-diet"]);
      assert.deepEqual(await ids({ $and: [{ kind: { $in: ["vet", "care"] } }, { pet: "rex" }] }), [
        "m-vaccine",
        "m-walk",
      ]);
      assert.deepEqual(await ids({ nosuchkey: "x" }), []);
      assert.deepEqual(await ids({ nosuchkey: { $ne: "x" } }).then((x) => x.length), 6);
    });

    test("near-duplicates (cosine ≥ threshold) update the existing memory; metadata merges", async () => {
      const c = freshCollection("dedup");
      const text = "Biscuit is allergic to chicken and must eat salmon kibble.";
      const first = await h
        .store()
        .save(
          req({ tenant: "acme", collection: c, text, metadata: { kind: "vet" }, vector: await vec(text), now: T0 }),
        );
      assert.equal(first.created, true);
      assert.equal(first.deduplicated, false);
      const text2 = "Biscuit is allergic to chicken and must eat salmon kibble!";
      const second = await h.store().save(
        req({
          tenant: "acme",
          collection: c,
          text: text2,
          metadata: { pet: "biscuit" },
          vector: await vec(text2),
          now: T0 + DAY,
        }),
      );
      assert.equal(second.deduplicated, true);
      assert.equal(second.created, false);
      assert.equal(second.memory.id, first.memory.id);
      assert.ok(second.similarity! >= 0.97);
      assert.equal(second.memory.text, text2);
      assert.deepEqual(second.memory.metadata, { kind: "vet", pet: "biscuit" });
      assert.equal(second.memory.createdAt, T0);
      assert.equal(second.memory.updatedAt, T0 + DAY);
      const other = "Rex is afraid of thunderstorms.";
      const third = await h
        .store()
        .save(req({ tenant: "acme", collection: c, text: other, vector: await vec(other), now: T0 }));
      assert.equal(third.created, true);
      const hits = await search("acme", c, "biscuit chicken", { now: T0 + DAY });
      assert.equal(hits.filter((x) => x.id === first.memory.id).length, 1);
      const part = (await h.store().partitions("acme")).find((p) => p.collection === c);
      assert.equal(part?.count, 2, "two memories, not three");
    });

    test("id upserts replace text (and metadata when given); an id of another collection is a conflict", async () => {
      const c = freshCollection("upsert");
      const a = await h.store().save(
        req({
          tenant: "acme",
          collection: c,
          id: "note-1",
          text: "first words",
          metadata: { v: 1 },
          vector: await vec("first words"),
        }),
      );
      assert.equal(a.created, true);
      const b = await h.store().save(
        req({
          tenant: "acme",
          collection: c,
          id: "note-1",
          text: "second thoughts entirely",
          vector: await vec("second thoughts entirely"),
          now: T0 + 1000,
        }),
      );
      assert.equal(b.created, false);
      assert.equal(b.deduplicated, false);
      assert.deepEqual(b.memory.metadata, { v: 1 }, "kept when not given");
      const got = await h.store().get("acme", "note-1");
      assert.equal(got?.text, "second thoughts entirely");
      assert.equal(got?.collection, c);
      const d = await h.store().save(
        req({
          tenant: "acme",
          collection: c,
          id: "note-1",
          text: "third",
          metadata: { v: 3 },
          vector: await vec("third"),
          now: T0 + 2000,
        }),
      );
      assert.deepEqual(d.memory.metadata, { v: 3 });
      await assert.rejects(
        h.store().save(
          req({
            tenant: "acme",
            collection: freshCollection("elsewhere"),
            id: "note-1",
            text: "x",
            vector: await vec("x"),
          }),
        ),
        (err: { code?: string }) => err.code === "conflict",
      );
    });

    test("verticals: a memory keeps the vertical of its latest save naming one; search by vertical sees only those", async () => {
      const c = freshCollection("vertical");
      const t = `tenant-${c}`;
      const save = async (text: string, over: Partial<SaveRequest> = {}) =>
        h.store().save(req({ tenant: t, collection: c, text, vector: await vec(text), ...over }));
      const clinic = await save("Invoices are sent on the first day of every month.", {
        id: "v-clinic",
        vertical: "clinic",
        metadata: { kind: "billing" },
      });
      assert.equal(clinic.memory.vertical, "clinic");
      const salon = await save("Salon invoices go out every Friday afternoon.", {
        id: "v-salon",
        vertical: "salon",
        metadata: { kind: "billing" },
      });
      assert.equal(salon.memory.vertical, "salon");
      const none = await save("Invoices are sent by the billing team.", { id: "v-none", metadata: { kind: "ops" } });
      assert.equal(none.memory.vertical, null);
      // Another tenant's memory of the same vertical is never seen.
      await h.store().save(
        req({
          tenant: `${t}-other`,
          collection: c,
          id: "v-other",
          text: "Invoices are sent on the first day of every month.",
          vector: await vec("Invoices are sent on the first day of every month."),
          vertical: "clinic",
        }),
      );

      const found = async (extra: { vertical?: string; filter?: unknown; limit?: number }) =>
        (await search(t, c, "invoices are sent on the first day of the month", extra)).map((x) => [x.id, x.vertical]);
      assert.deepEqual(await found({ vertical: "clinic" }), [["v-clinic", "clinic"]]);
      // The vertical applies before ranking: a lower-ranked memory of the vertical still fills the limit.
      assert.deepEqual(await found({ vertical: "salon", limit: 1 }), [["v-salon", "salon"]]);
      assert.deepEqual(await found({ vertical: "spa" }), []);
      assert.deepEqual(await found({ vertical: "clinic", filter: { kind: "ops" } }), []);
      assert.deepEqual(await found({ vertical: "salon", filter: { kind: "billing" } }), [["v-salon", "salon"]]);
      assert.deepEqual(
        (await found({})).map(([id]) => id).sort(),
        ["v-clinic", "v-none", "v-salon"],
        "without a vertical, every memory of the collection",
      );

      // An update without a vertical keeps the memory's; one naming a vertical gives it that one.
      const kept = await save("Invoices are sent on the first working day of every month.", { id: "v-clinic" });
      assert.equal(kept.memory.vertical, "clinic");
      const merged = await save("Salon invoices go out every Friday afternoon!");
      assert.equal(merged.deduplicated, true);
      assert.equal(merged.memory.id, "v-salon");
      assert.equal(merged.memory.vertical, "salon");
      const moved = await save("Invoices are sent by the billing team.", { id: "v-none", vertical: "spa" });
      assert.equal(moved.memory.vertical, "spa");
      assert.deepEqual(await found({ vertical: "spa" }), [["v-none", "spa"]]);
      assert.equal((await h.store().get(t, "v-clinic"))?.vertical, "clinic");
      const scanned = [];
      for await (const batch of h.store().scan(t, c, 10)) scanned.push(...batch);
      assert.deepEqual(scanned.map((m) => [m.id, m.vertical]).sort(), [
        ["v-clinic", "clinic"],
        ["v-none", "spa"],
        ["v-salon", "salon"],
      ]);
    });

    test("tenant isolation: same collection name, other tenant sees, finds, gets and forgets nothing", async () => {
      const c = freshCollection("iso");
      const t = `tenant-${c}`;
      await seed(t, c);
      await h.store().save(
        req({
          tenant: "globex",
          collection: c,
          id: "g-1",
          text: "Globex secret plan about chicken",
          vector: await vec("Globex secret plan about chicken"),
        }),
      );
      const hits = await search("globex", c, "Biscuit chicken allergy salmon rabies invoices", {
        filter: { kind: { $ne: "nothing" } },
      });
      assert.deepEqual(
        hits.map((x) => x.id),
        ["g-1"],
        "only globex's own memory, whatever the filter",
      );
      const all = await search("globex", c, "Globex chicken");
      assert.deepEqual(
        all.map((x) => x.id),
        ["g-1"],
      );
      assert.equal(await h.store().get("globex", "m-diet"), null);
      assert.equal(await h.store().get(t, "g-1"), null);
      assert.equal(await h.store().forgetIds("globex", c, ["m-diet"]), 0);
      assert.equal(await h.store().forgetWhere("globex", c, parseFilter({ kind: "vet" })!, false), 0);
      assert.equal((await search(t, c, "Biscuit chicken")).at(0)?.id, "m-diet");
      assert.equal(await h.store().get(`${t}/shop1`, "m-diet"), null, "a sub-tenant is another tenant");
    });

    test("forget by ids and by filter (dry run counts only)", async () => {
      const c = freshCollection("forget");
      const t = `tenant-${c}`;
      await seed(t, c);
      assert.equal(await h.store().forgetWhere(t, c, parseFilter({ kind: "vet" })!, true), 2);
      assert.equal((await search(t, c, "rabies vaccination", { filter: { kind: "vet" } })).length > 0, true);
      assert.equal(await h.store().forgetWhere(t, c, parseFilter({ kind: "vet" })!, false), 2);
      assert.equal((await search(t, c, "rabies vaccination Biscuit chicken", { filter: { kind: "vet" } })).length, 0);
      assert.equal(await h.store().forgetIds(t, c, ["m-wifi", "nope"]), 1);
      assert.equal(await h.store().get(t, "m-wifi"), null);
      assert.equal(await h.store().forgetIds(t, freshCollection("never"), ["m-walk"]), 0);
    });

    test("one model per collection: another model's vectors are refused until the collection is empty", async () => {
      const c = freshCollection("models");
      await h.store().save(req({ tenant: "acme", collection: c, id: "a", text: "alpha", vector: await vec("alpha") }));
      assert.deepEqual(await h.store().partitionModel("acme", c), { model: MODEL, dimensions: DIMENSIONS });
      await assert.rejects(
        h
          .store()
          .save(req({ tenant: "acme", collection: c, text: "beta", vector: await vec("beta"), model: "openai:other" })),
        (err: { code?: string; message?: string }) =>
          err.code === "conflict" && /lexical-hash-v1/.test(err.message ?? ""),
      );
      assert.equal(await h.store().partitionModel("acme", freshCollection("empty")), null);
      await h.store().forgetIds("acme", c, ["a"]);
      const ok = await h
        .store()
        .save(req({ tenant: "acme", collection: c, text: "beta", vector: await vec("beta"), model: "openai:other" }));
      assert.equal(ok.memory.model, "openai:other");
    });

    test("scan, partitions and replaceVectors (re-embedding keeps recency)", async () => {
      const c = freshCollection("reembed");
      await seed("tenant-re", c, T0 + 5 * DAY);
      const seen: string[] = [];
      for await (const batch of h.store().scan("tenant-re", c, 4)) {
        assert.ok(batch.length <= 4);
        seen.push(...batch.map((m) => m.id));
      }
      assert.deepEqual(seen.sort(), CORPUS.map((m) => m.id).sort());
      const parts = (await h.store().partitions("tenant-re")).filter((p) => p.collection === c);
      assert.deepEqual(parts, [
        { tenant: "tenant-re", collection: c, model: MODEL, dimensions: DIMENSIONS, count: CORPUS.length },
      ]);
      const vectors = new Map<string, Float32Array>();
      for (const m of CORPUS) vectors.set(m.id, await vec(m.text.toUpperCase()));
      await h.store().replaceVectors("tenant-re", c, "lexical-hash-v1-upper", DIMENSIONS, vectors);
      assert.deepEqual(await h.store().partitionModel("tenant-re", c), {
        model: "lexical-hash-v1-upper",
        dimensions: DIMENSIONS,
      });
      const hits = await search("tenant-re", c, "rabies vaccination", { now: T0 + 5 * DAY });
      assert.equal(hits[0].id, "m-vaccine");
      assert.equal(hits[0].updatedAt, T0 + 5 * DAY);
      assert.equal(hits[0].model, "lexical-hash-v1-upper");
    });

    test("parity with an exhaustive reference ranking on a random corpus, with and without filters", async () => {
      const c = freshCollection("parity");
      let state = 42;
      const rand = () => {
        state = (Math.imul(state, 1103515245) + 12345) >>> 0;
        return state / 2 ** 32;
      };
      const kinds = ["a", "b", "c"];
      const rows: Array<{ id: string; vector: Float32Array; metadata: Metadata; updatedAt: number }> = [];
      for (let i = 0; i < 120; i++) {
        const v = new Float32Array(DIMENSIONS);
        for (let d = 0; d < 24; d++) v[Math.floor(rand() * DIMENSIONS)] += rand() - 0.3;
        normalise(v);
        const metadata: Metadata = { kind: kinds[i % 3], n: i % 10 };
        const updatedAt = T0 - Math.floor(rand() * 120) * DAY;
        rows.push({ id: `p-${String(i).padStart(3, "0")}`, vector: v, metadata, updatedAt });
        await h.store().save(
          req({
            tenant: "acme",
            collection: c,
            id: rows[i].id,
            text: `row ${i}`,
            metadata,
            vector: v,
            now: updatedAt,
          }),
        );
      }
      for (const filter of [
        undefined,
        { kind: "b" },
        { n: { $gte: 5 }, kind: { $ne: "a" } },
        { $or: [{ kind: "c" }, { n: { $in: [1, 2] } }] },
      ]) {
        for (let qi = 0; qi < 3; qi++) {
          const q = rows[qi * 17].vector;
          const node = parseFilter(filter);
          const expected = rows
            .filter((r) => matches(node, r.metadata))
            .map((r) => {
              let s = 0;
              for (let d = 0; d < DIMENSIONS; d++) s += q[d] * r.vector[d];
              return { id: r.id, similarity: s, score: s * decay(r.updatedAt, T0, 20 * DAY), updatedAt: r.updatedAt };
            })
            .filter((r) => r.similarity > 1e-6)
            .sort((a, b) => (ranksBefore(a, b) ? -1 : 1))
            .slice(0, 8);
          const got = await h.store().search("acme", c, q, { limit: 8, filter: node, now: T0, halfLifeMs: 20 * DAY });
          assert.deepEqual(
            got.map((x) => x.id),
            expected.map((x) => x.id),
            `filter ${JSON.stringify(filter)} query ${qi}`,
          );
          for (let i = 0; i < got.length; i++) assert.ok(Math.abs(got[i].score - expected[i].score) < 1e-4);
        }
      }
    });
  });
}
