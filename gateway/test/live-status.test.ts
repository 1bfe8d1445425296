/**
 * The live-status cache behind discovery, docs, MCP tools/list and capability.discover: statuses
 * from Describe, one RPC per service however many callers, answers cached, and an expired answer
 * served while its refresh runs. (Through real processes: discovery.test.ts.)
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { LiveStatus } from "../src/discovery/live-status.ts";
import type { Dispatcher } from "../src/dispatch.ts";

function fakeDispatcher(answers: Record<string, { id: string; wired: boolean }[] | null>) {
  const calls: string[] = [];
  let release: (() => void) | undefined;
  let gate: Promise<void> | undefined;
  const d = {
    describe: async (service: string) => {
      calls.push(service);
      if (gate) await gate;
      return answers[service] ?? null;
    },
  };
  return {
    dispatcher: d as unknown as Dispatcher,
    calls,
    hold: () => (gate = new Promise<void>((r) => (release = r))),
    release: () => {
      gate = undefined;
      release?.();
    },
    answers,
  };
}

describe("LiveStatus", () => {
  test("live, not_wired and unavailable; the gateway's own abilities asked like any owner's", async () => {
    const f = fakeDispatcher({
      web: [
        { id: "web.browse", wired: false },
        { id: "web.research", wired: true },
      ],
      workspace: null,
      gateway: [
        { id: "gantry.about", wired: true },
        { id: "capability.discover", wired: true },
      ],
    });
    const ls = new LiveStatus(f.dispatcher, () => 0);
    const s = await ls.of([
      "web.browse",
      "web.research",
      "contact.create",
      "gantry.about",
      "capability.discover",
      "nope.x",
    ]);
    assert.equal(s.get("web.browse"), "not_wired");
    assert.equal(s.get("web.research"), "live");
    assert.equal(s.get("contact.create"), "unavailable");
    assert.equal(s.get("gantry.about"), "live");
    assert.equal(s.get("capability.discover"), "live");
    assert.equal(s.has("nope.x"), false);
  });

  test("one Describe per service for concurrent callers, then cached", async () => {
    let now = 0;
    const f = fakeDispatcher({ web: [{ id: "web.browse", wired: true }] });
    const ls = new LiveStatus(f.dispatcher, () => now);
    f.hold();
    const pending = Promise.all([
      ls.of(["web.browse"]),
      ls.of(["web.research"]),
      ls.of(["web.browse", "web.research"]),
    ]);
    f.release();
    await pending;
    assert.deepEqual(f.calls, ["web"]);
    now = 4_000;
    await ls.of(["web.browse"]);
    assert.deepEqual(f.calls, ["web"], "still fresh after 4 s");
  });

  test("an expired answer is served while the refresh runs; the next look sees the new state", async () => {
    let now = 0;
    const f = fakeDispatcher({ web: [{ id: "web.browse", wired: true }] });
    const ls = new LiveStatus(f.dispatcher, () => now);
    assert.equal((await ls.of(["web.browse"])).get("web.browse"), "live");
    f.answers.web = null; // web goes down
    now = 6_000;
    f.hold();
    assert.equal((await ls.of(["web.browse"])).get("web.browse"), "live", "stale answer, no waiting");
    f.release();
    await new Promise((r) => setImmediate(r));
    assert.equal((await ls.of(["web.browse"])).get("web.browse"), "unavailable");
    assert.equal(f.calls.length, 2);
  });
});
