/**
 * @module workspace/workflows/deliver
 * One delivery attempt: a signed JSON POST to the tenant's endpoint, through the kit's SSRF guard
 * (kit/src/ssrf.ts: public unicast addresses only, checked at connect time; ports 80/443), with a
 * timeout, no redirects followed, and the response body discarded (only its status matters).
 *
 * Outcome classes: 2xx → delivered. Network errors, timeouts, 408, 429 and 5xx → retryable. Any
 * other status (3xx, 4xx) and a refused address → permanent (retrying cannot help).
 */
import { SsrfBlockedError, type SsrfGuard } from "@gantry/kit";
import { sign, SIGNATURE_HEADER } from "./sign.ts";

export interface DeliveryRequest {
  url: URL;
  secret: string;
  body: string;
  runId: string;
  attempt: number;
  timeoutMs: number;
  /** The deliverer's guard (one per process; `WORKFLOW_ALLOW_LOOPBACK` is its test-only escape hatch). */
  guard: SsrfGuard;
  now?: () => number;
}

export interface DeliveryOutcome {
  ok: boolean;
  statusCode?: number;
  error?: string;
  permanent: boolean;
}

export async function deliver(req: DeliveryRequest): Promise<DeliveryOutcome> {
  const timestamp = Math.floor((req.now?.() ?? Date.now()) / 1000);
  try {
    const res = await req.guard.fetch(req.url, {
      method: "POST",
      redirect: "manual",
      timeoutMs: req.timeoutMs,
      maxBytes: 64 * 1024,
      body: req.body,
      headers: {
        "content-type": "application/json",
        "user-agent": "Gantry-Workflows/0.1",
        [SIGNATURE_HEADER]: sign(req.secret, timestamp, req.body),
        "gantry-run-id": req.runId,
        "gantry-attempt": String(req.attempt),
        "idempotency-key": req.runId,
      },
    });
    const code = res.status;
    if (code >= 200 && code < 300) return { ok: true, statusCode: code, permanent: false };
    return {
      ok: false,
      statusCode: code,
      error: `endpoint answered HTTP ${code}`,
      permanent: !(code >= 500 || code === 408 || code === 429),
    };
  } catch (err) {
    return { ok: false, error: (err as Error).message, permanent: err instanceof SsrfBlockedError };
  }
}
