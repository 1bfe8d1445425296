/**
 * @module web/robots
 * robots.txt, honoured for every page this service reads (RFC 9309 through `robots-parser`): fetched
 * through the SSRF guard once per origin and kept for ten minutes. A 4xx (no file) allows everything;
 * a 5xx disallows everything, as RFC 9309 §2.3.1.3 asks while the site is failing; a robots.txt that
 * cannot be fetched at all fails the page with stage `robots`.
 */
import type { SsrfGuard } from "@gantry/kit";
import robotsParserModule from "robots-parser";
import { PageFailure, pageFailure } from "./failures.ts";

// robots-parser is CommonJS whose typings declare an ES default export; at run time the default
// import is the function itself.
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;
type Robot = ReturnType<typeof robotsParser>;

const TTL_MS = 10 * 60_000;
const MAX_ORIGINS = 500;

export class RobotsCache {
  readonly #entries = new Map<string, { at: number; robot: Robot | "all" | "none" }>();
  readonly token: string;
  readonly #guard: SsrfGuard;
  readonly #userAgent: string;

  constructor(guard: SsrfGuard, userAgent: string) {
    this.#guard = guard;
    this.#userAgent = userAgent;
    this.token = userAgent.split(/[\s/]/)[0] || "GantryBot";
  }

  /** Throws a PageFailure (`robots`) when robots.txt disallows `url` for this service's agent. */
  async check(url: string, timeoutMs: number): Promise<void> {
    const u = new URL(url);
    const rules = await this.#rules(u.origin, timeoutMs);
    if (rules === "all") return;
    if (rules === "none" || rules.isDisallowed(u.href, this.token))
      throw new PageFailure(
        "robots",
        "robots",
        `${u.origin}/robots.txt disallows ${u.pathname} for ${this.token}${rules === "none" ? " (robots.txt answered 5xx: the whole site counts as disallowed)" : ""}`,
      );
  }

  async #rules(origin: string, timeoutMs: number): Promise<Robot | "all" | "none"> {
    const hit = this.#entries.get(origin);
    if (hit && Date.now() - hit.at < TTL_MS) return hit.robot;
    const robotsUrl = `${origin}/robots.txt`;
    let robot: Robot | "all" | "none";
    try {
      const res = await this.#guard.fetch(robotsUrl, {
        headers: { "user-agent": this.#userAgent },
        timeoutMs: Math.min(timeoutMs, 10_000),
        maxBytes: 512 * 1024,
      });
      if (res.status >= 500) robot = "none";
      else if (res.status >= 400) robot = "all";
      else robot = robotsParser(res.url, res.text());
    } catch (err) {
      throw pageFailure(err, robotsUrl, "robots");
    }
    this.#entries.delete(origin);
    this.#entries.set(origin, { at: Date.now(), robot });
    if (this.#entries.size > MAX_ORIGINS) this.#entries.delete(this.#entries.keys().next().value as string);
    return robot;
  }
}
