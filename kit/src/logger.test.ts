/**
 * Log redaction by name (issue 27, item 8): a secret in any spelling and at any depth never reaches
 * the log line (exact paths let `access_token` and `adminKey` through); ids and other fields stay.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { createLogger } from "./logger.ts";

test("secret-named fields are redacted at any depth and in any spelling; the rest is kept", () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const log = createLogger("test", "info", sink);
  log.info(
    {
      keyId: "key_123",
      access_token: "ya29.secret-1",
      adminKey: "gk_secret-2",
      provider: { clientSecret: "secret-3", refresh_token: "secret-4", tokenType: "Bearer" },
      headers: { Authorization: "Bearer secret-5", "X-Api-Key": "secret-6", accept: "application/json" },
      accounts: [{ password: "secret-7", user: "ada" }],
      credentialSource: "platform",
    },
    "a call",
  );
  const line = lines.join("");
  for (let i = 1; i <= 7; i++) assert.doesNotMatch(line, new RegExp(`secret-${i}`), `secret-${i} leaked: ${line}`);
  const parsed = JSON.parse(line);
  assert.equal(parsed.keyId, "key_123");
  assert.equal(parsed.access_token, "[redacted]");
  assert.equal(parsed.provider.tokenType, "Bearer");
  assert.equal(parsed.headers.accept, "application/json");
  assert.equal(parsed.accounts[0].user, "ada");
  assert.equal(parsed.credentialSource, "platform");
  assert.equal(parsed.msg, "a call");
});
