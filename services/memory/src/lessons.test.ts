/**
 * The lessons consolidation pipeline (issue 32 item 6) through the real service (Postgres, NATS,
 * gRPC, the default embedder use-lite-512-v1): lessons recorded with lesson.record are merged by
 * meaning into consolidated lessons, read back the way trust and content read them (the
 * `gantry.memory.v1.Lessons` RPC, signed as trust). A redelivered event counts nothing, and two
 * replicas consolidating at once lose no count.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { pathToFileURL } from "node:url";
import { join } from "node:path";
import {
  GantryError,
  SUBJECTS,
  connectNats,
  createLogger,
  encodeJson,
  repoRoot,
  runService,
  type Nats,
  type ServiceDefinition,
} from "@gantry/kit";
import { lessonsReader, type LessonsReaderClient } from "@gantry/kit/lessons-reader.ts";
import { startService, type ServiceHarness } from "@gantry/infra/testing/service.ts";
import { eventually } from "@gantry/infra/testing/stack.ts";
import type { LessonRecordedEvent } from "./abilities/lesson.record.ts";
import type { Context } from "./context.ts";
import { LESSONS_DURABLE, consolidate } from "./lessons.ts";

/** One lesson, said four ways. */
const MIGRATIONS = [
  {
    title: "Run migrations before deploying the API",
    lesson: "The API expects the new columns at boot.",
    severity: "medium",
    triggers: ["deploy"],
  },
  {
    title: "Apply database migrations before the API deploy",
    lesson: "The service needs the new columns when it starts.",
    severity: "critical",
    triggers: ["migration", "Deploy"],
  },
  {
    title: "Deploy the schema migration first, then the API",
    lesson: "Booting the API against an old schema fails.",
    severity: "low",
    triggers: ["schema"],
  },
] as const;
const KEYS = {
  title: "Rotate leaked API keys immediately",
  lesson: "A key pasted in a public issue was abused within an hour.",
  severity: "high",
  triggers: ["secret"],
};
const INVOICES = {
  title: "Never send invoices on weekends",
  lesson: "Customers ignore emails sent on Saturday.",
  severity: "low",
};

let s: ServiceHarness<Context>;
let lessons: LessonsReaderClient;
let nats: Nats;

before(async () => {
  s = await startService<Context>("memory");
  lessons = lessonsReader(`127.0.0.1:${s.port}`, s.signer("trust"));
  nats = await connectNats(s.env.NATS_URL, "lessons-test", createLogger("lessons-test", "silent"));
});
after(async () => {
  lessons?.close();
  await nats?.nc.close();
  await s?.stop();
});

async function record(tenant: string, l: Record<string, unknown>): Promise<string> {
  return (await s.call("lesson.record", { category: "ops", ...l }, { tenant })).id;
}

/** Every event of the stream has been consolidated and acknowledged. */
async function drained(): Promise<void> {
  await eventually(async () => {
    const info = await nats.jsm.consumers.info("LESSONS", LESSONS_DURABLE);
    return info.num_pending === 0 && info.num_ack_pending === 0;
  }, 30_000);
}

describe("lessons consolidation", () => {
  test("paraphrases of one lesson become one consolidated lesson with its count, highest severity, triggers and times", async () => {
    await record("acme", MIGRATIONS[0]);
    await record("acme", KEYS);
    await record("acme", MIGRATIONS[1]);
    await record("acme", INVOICES);
    await record("acme", MIGRATIONS[2]);
    await drained();
    const all = await lessons.list({ tenant: "acme" });
    assert.equal(all.length, 3, JSON.stringify(all.map((l) => [l.title, l.count])));
    const merged = all[0];
    assert.equal(merged.title, MIGRATIONS[0].title, "the first wording is kept");
    assert.equal(merged.count, 3);
    assert.equal(merged.severity, "critical");
    assert.deepEqual(merged.triggers, ["deploy", "migration", "schema"]);
    const { rows } = await s.db.query(
      `SELECT min(created_at) AS first, max(created_at) AS last FROM memory.lessons WHERE tenant = 'acme' AND title = ANY($1)`,
      [MIGRATIONS.map((m) => m.title)],
    );
    assert.equal(merged.first_seen, rows[0].first.toISOString());
    assert.equal(merged.last_seen, rows[0].last.toISOString());
    const apart = all.slice(1).map((l) => [l.title, l.count, l.severity]);
    assert.deepEqual(apart.sort(), [
      [INVOICES.title, 1, "low"],
      [KEYS.title, 1, "high"],
    ]);
    // What skill.load guardrails asks for: only the critical ones.
    assert.deepEqual(
      (await lessons.list({ tenant: "acme", min_severity: "critical" })).map((l) => l.title),
      [MIGRATIONS[0].title],
    );
    // What plan.create asks for: high or critical, relevant to its goal.
    const relevant = await lessons.list({
      tenant: "acme",
      min_severity: "high",
      query: "Deploy the new billing API with a database migration",
    });
    assert.deepEqual(
      relevant.map((l) => l.title),
      [MIGRATIONS[0].title],
    );
    assert.deepEqual(relevant[0].matched_triggers, ["deploy", "migration"]);
    // Another tenant sees none of them.
    assert.deepEqual(await lessons.list({ tenant: "beta" }), []);
  });

  test("a redelivered event does not count twice", async () => {
    const id = await record("redeliver", KEYS);
    await drained();
    const [before1] = await lessons.list({ tenant: "redeliver" });
    assert.equal(before1.count, 1);
    const event: LessonRecordedEvent = {
      id,
      tenant: "redeliver",
      title: KEYS.title,
      category: "ops",
      lesson: KEYS.lesson,
      triggers: KEYS.triggers,
      severity: KEYS.severity,
      context: null,
      fix: null,
      tags: [],
      reusable: null,
      recorded: before1.first_seen,
      requestId: null,
      keyId: null,
    };
    // Published again under another msg id, as a retry after a lost ack would deliver it.
    await nats.js.publish(SUBJECTS.lessonRecorded, encodeJson(event), { msgID: `${id}-again` });
    await drained();
    const after1 = await lessons.list({ tenant: "redeliver" });
    assert.equal(after1.length, 1);
    assert.equal(after1[0].count, 1);
  });

  test("an unreadable event is set aside, not retried forever", async () => {
    const before1 = await lessons.list({ tenant: "acme" });
    await nats.js.publish(SUBJECTS.lessonRecorded, encodeJson({ id: "les_broken", tenant: "acme" }));
    await drained();
    assert.deepEqual(await lessons.list({ tenant: "acme" }), before1);
  });

  test("two replicas consolidating the same tenant at once lose no count", async () => {
    const mod = (await import(pathToFileURL(join(repoRoot(), "services/memory/src/service.ts")).href)) as {
      default: ServiceDefinition<Context>;
    };
    const second = await runService(mod.default, {
      ...process.env,
      ...s.env,
      GRPC_PORT: "0",
      GRPC_HOST: "127.0.0.1",
      LOG_LEVEL: "warn",
      NODE_ENV: "test",
    });
    try {
      const events = Array.from({ length: 12 }, (_, i): LessonRecordedEvent => {
        const l = MIGRATIONS[i % MIGRATIONS.length];
        return {
          id: `les_concurrent${String(i).padStart(8, "0")}`,
          tenant: "race",
          title: l.title,
          category: "ops",
          lesson: l.lesson,
          triggers: [...l.triggers],
          severity: l.severity,
          context: null,
          fix: null,
          tags: [],
          reusable: null,
          recorded: new Date(Date.UTC(2026, 10, 1, 0, i)).toISOString(),
          requestId: null,
          keyId: null,
        };
      });
      // The model's vectors, worked out once: with the model's own pace (one text at a time per
      // replica) the merges would hardly overlap, and overlapping merges are what this is about.
      const texts = [...new Set(events.map((e) => `${e.title}\n${e.lesson}`))];
      const vectors = new Map((await s.ctx.embedder.embed(texts, "document")).map((v, i) => [texts[i], v]));
      const instant = (ctx: Context): Context => ({
        ...ctx,
        embedder: {
          ...ctx.embedder,
          model: ctx.embedder.model,
          dimensions: ctx.embedder.dimensions,
          matching: ctx.embedder.matching,
          embed: async (t) => t.map((x) => vectors.get(x) as Float32Array),
        },
      });
      const [a, b] = [instant(s.ctx), instant(second.ctx)];
      // Each event handled by both replicas at once, as a redelivery racing the first delivery would be.
      const outcomes = await Promise.all(events.flatMap((e) => [consolidate(a, e), consolidate(b, e)]));
      assert.equal(outcomes.filter((o) => o.outcome === "duplicate").length, 12);
      const [only, ...rest] = await lessons.list({ tenant: "race" });
      assert.equal(rest.length, 0);
      assert.equal(only.count, 12);
      assert.equal(only.severity, "critical");
      assert.equal(only.first_seen, events[0].recorded);
      assert.equal(only.last_seen, events[11].recorded);
    } finally {
      await second.stop();
    }
  });

  test("the read is refused to the gateway and to malformed requests", async () => {
    const asGateway = lessonsReader(`127.0.0.1:${s.port}`, s.signer("gateway"));
    try {
      await assert.rejects(asGateway.list({ tenant: "acme" }), (err: unknown) => err instanceof GantryError);
    } finally {
      asGateway.close();
    }
    await assert.rejects(lessons.list({ tenant: "acme", min_severity: "blocker" }), { code: "invalid_request" });
  });
});
