/**
 * @module web/failures
 * How a page that could not be read is told to the caller: one translation from the SSRF guard's
 * and the browser's failures to the closed error set, naming the rule or the stage that failed.
 *
 * - the URL asked for is refused by the guard (scheme, port, private address, …): 400, detail
 *   `url_refused` at `/input/url` with the rule;
 * - its host does not resolve: 400, detail `host_not_found` (a typo, not an outage);
 * - a redirect (or, in the browser, the document) leads somewhere the guard refuses: 502 naming the hop;
 * - robots.txt disallows the page: 403 with reason `robots_disallowed`;
 * - no connection, or the connection failed: 502 `upstream_failed`, stage in the message;
 * - no complete response in time: 504 `timeout`, stage in the message.
 */
import { GantryError, networkErrorCode, SsrfBlockedError, SsrfFetchError } from "@gantry/kit";

export type Stage = "robots" | "connect" | "response" | "body" | "render";

/** A page failure already phrased for the caller. */
export type FailureKind = "refused" | "not_found" | "robots" | "unreachable" | "timeout" | "not_text";

export class PageFailure extends Error {
  readonly kind: FailureKind;
  readonly stage: Stage;
  readonly rule: string | undefined;
  constructor(kind: FailureKind, stage: Stage, message: string, rule?: string) {
    super(message);
    this.name = "PageFailure";
    this.kind = kind;
    this.stage = stage;
    this.rule = rule;
  }
}

/** Turns whatever a page fetch threw into a PageFailure (or rethrows a bug as is). */
export function pageFailure(err: unknown, asked: string, stage: Stage = "connect"): PageFailure {
  if (err instanceof PageFailure) return err;
  if (err instanceof SsrfBlockedError) {
    const first = sameUrl(err.url, asked);
    return new PageFailure(
      "refused",
      stage,
      first
        ? `url: ${err.message}. Give a public http(s) URL on port 80 or 443.`
        : `${asked} redirected to ${err.url}, which is refused: ${err.message}`,
      err.rule,
    );
  }
  if (err instanceof SsrfFetchError) {
    const at = err.stage === "connect" && stage === "robots" ? "robots" : err.stage;
    if (err.code === "ETIMEDOUT") return new PageFailure("timeout", at, `${err.url}: ${err.message} (stage: ${at})`);
    const code = networkErrorCode(err);
    if (code === "ENOTFOUND" && sameOrigin(err.url, asked))
      return new PageFailure("not_found", at, `url: the host of ${asked} does not resolve (DNS: no such name)`);
    return new PageFailure("unreachable", at, `${err.message} (stage: ${at})`);
  }
  throw err;
}

function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return a === b;
  }
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).host === new URL(b).host;
  } catch {
    return false;
  }
}

/** The caller-facing error for a failure of the page at `field` (e.g. `/input/url`). */
export function toGantryError(f: PageFailure, field = "/input/url"): GantryError {
  switch (f.kind) {
    case "refused":
      return f.message.startsWith("url:")
        ? new GantryError("validation_failed", f.message, {
            details: [{ path: field, message: f.message, code: "url_refused", rule: f.rule }],
          })
        : new GantryError("upstream_failed", f.message, { reason: "redirect_refused" });
    case "not_found":
      return new GantryError("validation_failed", f.message, {
        details: [{ path: field, message: f.message, code: "host_not_found" }],
      });
    case "robots":
      return new GantryError("forbidden", f.message, { reason: "robots_disallowed" });
    case "timeout":
      return new GantryError("timeout", f.message, { reason: `timeout_${f.stage}` });
    case "not_text":
      return new GantryError("upstream_failed", f.message, { reason: "not_text" });
    default:
      return new GantryError("upstream_failed", f.message, { reason: `unreachable_${f.stage}` });
  }
}
