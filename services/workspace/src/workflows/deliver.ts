/**
 * @module workspace/workflows/deliver
 * One delivery attempt: a signed JSON POST to the tenant's endpoint, through the SSRF guard, with a
 * timeout, no redirects followed, and the response body discarded (only its status matters).
 *
 * Outcome classes: 2xx → delivered. Network errors, timeouts, 408, 429 and 5xx → retryable. Any
 * other status (3xx, 4xx) and a refused address → permanent (retrying cannot help).
 */
import http from "node:http";
import https from "node:https";
import { assertLiteralAllowed, guardedLookup } from "./ssrf.ts";
import { sign, SIGNATURE_HEADER } from "./sign.ts";

export interface DeliveryRequest {
  url: URL;
  secret: string;
  body: string;
  runId: string;
  attempt: number;
  timeoutMs: number;
  allowLoopback: boolean;
  now?: () => number;
}

export interface DeliveryOutcome {
  ok: boolean;
  statusCode?: number;
  error?: string;
  permanent: boolean;
}

export function deliver(req: DeliveryRequest): Promise<DeliveryOutcome> {
  try {
    assertLiteralAllowed(req.url.hostname, req.allowLoopback);
  } catch (err) {
    return Promise.resolve({ ok: false, error: (err as Error).message, permanent: true });
  }
  const timestamp = Math.floor((req.now?.() ?? Date.now()) / 1000);
  const mod = req.url.protocol === "https:" ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const done = (o: DeliveryOutcome) => {
      if (!settled) {
        settled = true;
        resolve(o);
      }
    };
    const r = mod.request(
      req.url,
      {
        method: "POST",
        lookup: guardedLookup(req.allowLoopback) as never,
        timeout: req.timeoutMs,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(req.body),
          "user-agent": "Gantry-Workflows/0.1",
          [SIGNATURE_HEADER]: sign(req.secret, timestamp, req.body),
          "gantry-run-id": req.runId,
          "gantry-attempt": String(req.attempt),
          "idempotency-key": req.runId,
        },
      },
      (res) => {
        res.resume();
        const code = res.statusCode ?? 0;
        res.on("end", () => {
          if (code >= 200 && code < 300) done({ ok: true, statusCode: code, permanent: false });
          else
            done({
              ok: false,
              statusCode: code,
              error: `endpoint answered HTTP ${code}`,
              permanent: !(code >= 500 || code === 408 || code === 429),
            });
        });
        res.on("error", (err) => done({ ok: false, statusCode: code, error: err.message, permanent: false }));
      },
    );
    const deadline = setTimeout(() => r.destroy(new Error(`no response within ${req.timeoutMs} ms`)), req.timeoutMs);
    r.on("timeout", () => r.destroy(new Error(`no response within ${req.timeoutMs} ms`)));
    r.on("error", (err: Error & { code?: string }) =>
      done({ ok: false, error: err.message, permanent: err.code === "EBLOCKED" }),
    );
    r.on("close", () => clearTimeout(deadline));
    r.end(req.body);
  });
}
