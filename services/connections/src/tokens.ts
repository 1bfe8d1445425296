/**
 * @module connections/tokens
 * Accounts connected with a token the user made at the provider instead of OAuth consent (no OAuth
 * app needed): GitHub personal access tokens (classic `ghp_…`, fine-grained `github_pat_…`) and
 * Slack bot tokens (`xoxb-…`). Which toolkit takes which kind, and the provider's own check of a
 * token before integration.app.connect stores it:
 *
 * - GitHub: `GET /user` (Bearer, the toolkit's headers: `X-GitHub-Api-Version`, `User-Agent`);
 *   2xx gives the login and, from `X-OAuth-Scopes` (classic tokens only), the scopes.
 * - Slack: `POST /auth.test` (Bearer); `ok: true` gives the team, user and bot ids. Slack answers a
 *   bad token with HTTP 200 and `ok: false`, so the body decides, not the status.
 *
 * Both go to the toolkit's base URL (CONNECTIONS_TOOLKIT_BASE_URLS replaces it, as for its tools)
 * through the service's SSRF guard, like every tool execution. A token the provider refuses is 400
 * `/input/token` (`provider_refused`); a provider that cannot be reached, is rate limiting or does not
 * answer in time is 503 `unavailable` with a wait (its message reaches the caller, a 502's would be
 * sanitized); any other answer is 502. The token is in the request header only: never in an error,
 * a log line or a result (a provider message quoted in an error has it redacted).
 */
import { GantryError, SsrfBlockedError, SsrfFetchError, type SsrfResponse } from "@gantry/kit";
import type { Context } from "./context.ts";
import { invalidField } from "./records.ts";
import type { Toolkit } from "./toolkits.ts";

export interface TokenKind {
  /** Accepted prefixes: a token of another kind is refused before it is sent anywhere. */
  prefixes: readonly string[];
  /** What to give, for messages. */
  what: string;
  /** Where the user makes one, for messages. */
  makeAt: string;
}

/** The toolkits that take a token in place of OAuth consent. */
export const TOKEN_KINDS: Readonly<Record<string, TokenKind>> = {
  github: {
    prefixes: ["ghp_", "github_pat_"],
    what: "a GitHub personal access token (classic `ghp_…` or fine-grained `github_pat_…`)",
    makeAt: "https://github.com/settings/tokens",
  },
  slack: {
    prefixes: ["xoxb-"],
    what: "a Slack bot token (`xoxb-…`)",
    makeAt:
      "your Slack app's OAuth & Permissions page (https://api.slack.com/apps), after installing it to the workspace",
  },
};

/** What the provider said about a token it accepted. */
export interface VerifiedToken {
  /** The provider's reference to the account (GitHub login, Slack user id of the bot). */
  externalRef: string;
  /** A name for the account when the caller gave no label (GitHub login, Slack team name). */
  name: string;
  /** Scopes the provider reported for the token (GitHub classic tokens); else empty. */
  scopes: string[];
  /** For the trail and the `connected` message: never the token. */
  detail: Record<string, unknown>;
}

const TOKEN_PATH = "/input/token";
/** When a rate-limited or unreachable provider names no wait. */
const DEFAULT_RETRY_MS = 30_000;
/** Slack `error` values that mean the token itself is refused (https://api.slack.com/methods/auth.test). */
const SLACK_REFUSALS = new Set([
  "not_authed",
  "invalid_auth",
  "account_inactive",
  "token_revoked",
  "token_expired",
  "not_allowed_token_type",
  "ekm_access_denied",
]);

/** 400 `/input/token` unless the toolkit takes tokens and this one is of its kind (checked before any request). */
export function tokenKindOf(toolkit: Toolkit, token: string): TokenKind {
  const kind = TOKEN_KINDS[toolkit.out.slug];
  if (!kind)
    throw invalidField(
      TOKEN_PATH,
      `is not taken by ${toolkit.out.name}: connect it ${toolkit.out.authScheme === "api_key" ? "with `credentials`" : "through OAuth consent (returnUrl)"}; tokens are taken by ${Object.keys(TOKEN_KINDS).join(", ")}`,
      "not_applicable",
    );
  // A pasted line break or space would otherwise fail as a malformed header, which reads as an outage.
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i);
    if (c < 0x21 || c > 0x7e)
      throw invalidField(
        TOKEN_PATH,
        `holds a space, line break or other character no ${toolkit.out.name} token has (at ${i}): give the token alone`,
        "invalid_value",
      );
  }
  if (!kind.prefixes.some((p) => token.startsWith(p)))
    throw invalidField(
      TOKEN_PATH,
      `is not ${kind.what}: it starts with none of ${kind.prefixes.join(", ")}. Make one at ${kind.makeAt}`,
      "invalid_value",
    );
  return kind;
}

/** Asks the provider whether it accepts the token; answers what it said, or throws (400, 502, 503). */
export async function verifyToken(ctx: Context, toolkit: Toolkit, token: string): Promise<VerifiedToken> {
  const kind = tokenKindOf(toolkit, token);
  const name = toolkit.out.name;
  const headers: Record<string, string> = {
    ...Object.fromEntries(Object.entries(toolkit.headers).map(([k, v]) => [k.toLowerCase(), v])),
    // The media type both providers' descriptions give these answers in (GitHub serves it as it
    // serves the vnd.github+json its tools ask for).
    accept: "application/json",
    authorization: `Bearer ${token}`,
  };
  const github = toolkit.out.slug === "github";
  let res: SsrfResponse;
  try {
    res = await ctx.guard.fetch(`${toolkit.baseUrl}${github ? "/user" : "/auth.test"}`, {
      method: github ? "GET" : "POST",
      headers,
      // A redirect is no answer to this check, and nothing carries the token to another origin.
      redirect: "manual",
      maxBytes: 64 * 1024,
    });
  } catch (err) {
    const why =
      err instanceof SsrfFetchError && err.code === "ETIMEDOUT"
        ? `did not answer within ${ctx.guard.timeoutMs} ms`
        : err instanceof SsrfBlockedError
          ? `could not be reached (its address was refused: ${err.rule})`
          : "could not be reached";
    ctx.log.warn(
      { toolkit: toolkit.out.slug, err: err instanceof Error ? err.message : String(err) },
      "token check: provider unreachable",
    );
    throw new GantryError("unavailable", `${name} ${why} to check the token; nothing was stored.`, {
      reason: `Try again shortly (${name} API: ${toolkit.baseUrl}).`,
      retryAfterMs: DEFAULT_RETRY_MS,
    });
  }
  const body = parseJson(res.text());
  const field = (key: string): string | null => {
    const v = body[key];
    return typeof v === "string" && v ? v : null;
  };
  if (res.status === 429 || (res.status === 403 && res.headers.get("x-ratelimit-remaining") === "0"))
    throw new GantryError("unavailable", `${name} is rate limiting this server; the token was not checked or stored.`, {
      reason: "Try again after the wait.",
      retryAfterMs: retryAfterMs(res, ctx.now()),
    });
  const refused = (why: string) =>
    invalidField(TOKEN_PATH, `was refused by ${name} (${why}). ${fix(kind)}`, "provider_refused");
  const ok = res.status >= 200 && res.status < 300;
  if (github) {
    if (res.status === 401 || res.status === 403) throw refused(`HTTP ${res.status}${quote(field("message"), token)}`);
    const login = field("login");
    if (!ok || !login) throw badAnswer(name, res.status);
    const scopes = (res.headers.get("x-oauth-scopes") ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    return {
      externalRef: login,
      name: login,
      scopes,
      detail: { login, tokenKind: token.startsWith("ghp_") ? "classic" : "fine-grained" },
    };
  }
  const error = field("error");
  if (body.ok === false && error && SLACK_REFUSALS.has(error)) throw refused(`\`${error}\``);
  const userId = field("user_id");
  if (!ok || body.ok !== true || !userId) throw badAnswer(name, res.status, error);
  const team = field("team");
  return {
    externalRef: userId,
    name: team ?? userId,
    scopes: [],
    detail: { team, teamId: field("team_id"), userId, botId: field("bot_id") },
  };
}

function fix(kind: TokenKind): string {
  return `Check that it was copied whole and has not expired or been revoked, or make a new one at ${kind.makeAt}`;
}

function badAnswer(name: string, status: number, error?: string | null): GantryError {
  return new GantryError(
    "upstream_failed",
    `${name} answered the token check with HTTP ${status}${error ? ` (${error})` : ""}; nothing was stored. Try again later.`,
  );
}

/** The answer's JSON object, or an empty one (a provider's error page is not JSON). */
function parseJson(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The provider's own words, short, with the token taken out should it quote it. */
function quote(message: string | null, token: string): string {
  if (!message) return "";
  return `: "${message.split(token).join("[redacted]").slice(0, 200)}"`;
}

/** The wait a rate-limited provider names: `Retry-After` seconds, or GitHub's `x-ratelimit-reset` epoch. */
function retryAfterMs(res: SsrfResponse, now: number): number {
  const after = Number(res.headers.get("retry-after"));
  if (Number.isFinite(after) && after > 0) return after * 1000;
  const reset = Number(res.headers.get("x-ratelimit-reset"));
  if (Number.isFinite(reset) && reset * 1000 > now) return reset * 1000 - now;
  return DEFAULT_RETRY_MS;
}
