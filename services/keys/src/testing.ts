/**
 * Helpers for the keys service's integration tests: a stack with only the keys service (and as
 * many gateways as asked), a shared test clock every process reads (kit/src/clock.ts), and short
 * ways to issue keys and read their trail.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import assert from "node:assert/strict";
import request from "supertest";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";
import type { StackOptions } from "@gantry/infra/runner/stack.ts";

export interface KeysTestStack extends TestStack {
  /** Moves every process's clock forward (cumulative), without sleeping. */
  advanceClock: (ms: number) => void;
  /** key.issue through the first gateway; asserts 200 and returns the result. */
  issue: (input: Record<string, unknown>, key?: string) => Promise<IssuedKey>;
  /** POST /v1/abilities/{id} on a given gateway URL. */
  callAt: (url: string, ability: string, body: unknown, key: string) => request.Test;
  /** Every raw secret a test saw, for the log scan. */
  secrets: Set<string>;
}

export interface IssuedKey {
  id: string;
  key: string;
  prefix: string;
  tenant: string;
  name: string;
  scopes: string[];
  created: string;
  expires: string | null;
  [field: string]: unknown;
}

export async function startKeysStack(opts: Partial<StackOptions> = {}): Promise<KeysTestStack> {
  const dir = mkdtempSync(join(tmpdir(), "gantry-keys-clock-"));
  const clockFile = join(dir, "offset");
  writeFileSync(clockFile, "0");
  let offset = 0;
  const t = await startTestStack({
    services: ["keys"],
    healthTimeoutMs: 120_000,
    ...opts,
    env: { NODE_ENV: "test", GANTRY_TEST_CLOCK_FILE: clockFile, LOG_LEVEL: "debug", ...opts.env },
  });
  const secrets = new Set<string>([t.adminKey]);
  const stop = t.stop;
  const out: KeysTestStack = {
    ...t,
    secrets,
    advanceClock: (ms) => {
      offset += ms;
      writeFileSync(clockFile, String(offset));
    },
    issue: async (input, key = t.adminKey) => {
      const res = await t.call("key.issue", { input }, key);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      secrets.add(res.body.result.key);
      return res.body.result as IssuedKey;
    },
    callAt: (url, ability, body, key) =>
      request(url)
        .post(`/v1/abilities/${ability}`)
        .set("Authorization", `Bearer ${key}`)
        .send(body as object),
    stop: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return out;
}

/** Asserts that no raw secret the test saw appears anywhere in the captured process output. */
export function assertNoSecretsInLogs(t: KeysTestStack, extra: string[] = []): void {
  const logs = t.stack.logs();
  assert.ok(logs.length > 0, "logs were captured");
  for (const s of [...t.secrets, ...extra]) {
    assert.ok(!logs.includes(s), `a raw secret (${s.slice(0, 7)}…) appears in the logs`);
    // The part after the displayed prefix is what makes a key usable: not even that may leak.
    assert.ok(!logs.includes(s.slice(11)), `the secret part of ${s.slice(0, 7)}… appears in the logs`);
  }
}
