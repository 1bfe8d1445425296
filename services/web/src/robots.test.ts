/**
 * robots.txt (src/robots.ts) against a local server: rules per user agent, 4xx allows everything,
 * 5xx disallows everything (RFC 9309), one fetch per origin while cached.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { SsrfGuard } from "@gantry/kit";
import { PageFailure } from "./failures.ts";
import { RobotsCache } from "./robots.ts";

let answer = { status: 200, body: "User-agent: GantryBot\nDisallow: /no/\n\nUser-agent: *\nDisallow: /\n" };
let fetches = 0;
let server: http.Server;
let base = "";
before(async () => {
  server = http.createServer((req, res) => {
    if (req.url === "/robots.txt") fetches++;
    res.writeHead(answer.status, { "content-type": "text/plain" }).end(answer.body);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

const guard = new SsrfGuard({ allowLoopback: true, log: { warn: () => {} } });

async function allowed(robots: RobotsCache, path: string): Promise<boolean> {
  try {
    await robots.check(`${base}${path}`, 5000);
    return true;
  } catch (err) {
    assert.ok(err instanceof PageFailure && err.kind === "robots", String(err));
    return false;
  }
}

test("rules for our product token apply, not the catch-all; one fetch per origin", async () => {
  const robots = new RobotsCache(guard, "GantryBot/0.1 (+https://gantry.dev/bot)");
  assert.equal(robots.token, "GantryBot");
  assert.equal(await allowed(robots, "/yes/page"), true);
  assert.equal(await allowed(robots, "/no/page"), false);
  assert.equal(fetches, 1);
  const other = new RobotsCache(guard, "OtherBot/1.0");
  assert.equal(await allowed(other, "/yes/page"), false); // `*` disallows everything
});

test("robots.txt answering 404 allows everything; 503 disallows everything", async () => {
  answer = { status: 404, body: "" };
  assert.equal(await allowed(new RobotsCache(guard, "GantryBot/0.1"), "/anything"), true);
  answer = { status: 503, body: "" };
  const robots = new RobotsCache(guard, "GantryBot/0.1");
  assert.equal(await allowed(robots, "/anything"), false);
  await assert.rejects(robots.check(`${base}/x`, 5000), /answered 5xx/);
});
