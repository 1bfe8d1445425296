/**
 * @module content/sms
 * Which Twilio account a tenant's SMS leaves through, and the one request per recipient over
 * Twilio's Messages API (`POST /2010-04-01/Accounts/{AccountSid}/Messages.json`, form-encoded, HTTP
 * Basic `AccountSid:AuthToken`).
 *
 * The connections service answers first (`ResolveCredential(tenant, "sms")`), as for email (mail.ts):
 * - the tenant's own `sms` connection: its external ref is the tenant's Account SID and its token
 *   the Basic password (Twilio takes no bearer token) — `credentialSource: "tenant"`;
 * - else the platform account configured there (`CONNECTIONS_PLATFORM_ACCOUNTS.sms`, fields
 *   `accountSid`, `authToken`, `from` and/or `messagingServiceSid`) — `credentialSource: "platform"`;
 * - when connections has neither (`not_found`), this service's own `TWILIO_*` settings, and
 *   without them channel sms answers 501 naming the variables (discovery says the same: `needs`).
 *
 * Connections being unreachable is an error (503), never a silent switch from a tenant's own
 * account to the platform's. The base URL is the operator's (`TWILIO_API_URL`), never the
 * caller's, so requests go out with plain `fetch` rather than the SSRF guard. Credentials travel only
 * in the Authorization header: no log line, stored row or answer carries them.
 */
import { type CallContext, ConfigError, GantryError, stopsWithCall } from "@gantry/kit";
import { type AbilityNeed, needsConfiguration } from "@gantry/kit/ability-needs.ts";
import type { ContentConfig } from "./config.ts";
import type { Context } from "./context.ts";
import { resolveAccount } from "./mail.ts";

/** What to set on the content service for channel sms to run (TWILIO_MESSAGING_SERVICE_SID may replace TWILIO_FROM). */
export const SMS_VARIABLES = ["TWILIO_ACCOUNT_SID", "TWILIO_AUTH_TOKEN", "TWILIO_FROM"];

const NOT_CONFIGURED =
  "Channel sms needs a Twilio account: set TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM (or TWILIO_MESSAGING_SERVICE_SID) on the content service, or an `sms` platform account in the connections service.";

export interface SmsAccount {
  accountSid: string;
  authToken: string;
  /** Default sender (E.164 number or alphanumeric id); the input's `from` wins. */
  from: string | null;
  /** A Messaging Service that picks the sender when neither the input nor `from` names one. */
  messagingServiceSid: string | null;
  credentialSource: "tenant" | "platform";
  connectionId: string | null;
}

/** The platform's own account from `TWILIO_*`, or null when channel sms is not configured here. */
export function platformSmsAccount(config: ContentConfig): SmsAccount | null {
  if (!config.TWILIO_ACCOUNT_SID || !config.TWILIO_AUTH_TOKEN) return null;
  return {
    accountSid: config.TWILIO_ACCOUNT_SID,
    authToken: config.TWILIO_AUTH_TOKEN,
    from: config.TWILIO_FROM ?? null,
    messagingServiceSid: config.TWILIO_MESSAGING_SERVICE_SID ?? null,
    credentialSource: "platform",
    connectionId: null,
  };
}

/**
 * Refuses a half-set account at start (a SID without its token, or no way to name a sender), so
 * the mistake is found by the operator rather than by the first caller.
 */
export function checkSmsConfig(config: ContentConfig): void {
  const set = SMS_VARIABLES.concat("TWILIO_MESSAGING_SERVICE_SID").filter(
    (name) => config[name as keyof ContentConfig] !== undefined,
  );
  if (set.length === 0) return;
  const missing = ["TWILIO_ACCOUNT_SID", "TWILIO_AUTH_TOKEN"].filter((name) => !set.includes(name));
  if (!config.TWILIO_FROM && !config.TWILIO_MESSAGING_SERVICE_SID) missing.push("TWILIO_FROM");
  if (missing.length > 0)
    throw new ConfigError(
      `SMS is half configured: ${set.join(", ")} ${set.length === 1 ? "is" : "are"} set but ${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} not (set ${SMS_VARIABLES.join(", ")}, or none of them).`,
    );
  try {
    new URL(config.TWILIO_API_URL);
  } catch {
    throw new ConfigError(`TWILIO_API_URL is not a URL: ${config.TWILIO_API_URL}`);
  }
}

/** Discovery's view: channel sms needs configuration unless this service has its own account. */
export function smsNeeds(config: ContentConfig): AbilityNeed[] {
  return platformSmsAccount(config)
    ? []
    : [needsConfiguration("message.send", SMS_VARIABLES, NOT_CONFIGURED, "channel sms")];
}

/** An Account SID as Twilio issues them: `AC` and 32 hex digits. */
function isAccountSid(s: string): boolean {
  return s.length === 34 && s.startsWith("AC") && /^[0-9a-fA-F]+$/.test(s.slice(2));
}

export async function smsAccountFor(ctx: Context, call: CallContext): Promise<SmsAccount> {
  const fallback = (): SmsAccount => {
    const own = platformSmsAccount(ctx.config);
    if (!own) throw new GantryError("not_implemented", NOT_CONFIGURED, { reason: NOT_CONFIGURED });
    return own;
  };
  const cred = await resolveAccount(ctx, call, "sms");
  if (!cred) return fallback();
  if (cred.credential_source === "tenant") {
    if (!isAccountSid(cred.external_ref) || !cred.access_token)
      throw new GantryError(
        "unavailable",
        "Your sms connection cannot be used: Twilio needs the connection's Account SID (AC…) and auth token, and this connection holds no Account SID. Nothing was sent; reconnect it with your Twilio account.",
      );
    return {
      accountSid: cred.external_ref,
      authToken: cred.access_token,
      from: null,
      messagingServiceSid: null,
      credentialSource: "tenant",
      connectionId: cred.connection_id || null,
    };
  }
  const { accountSid, authToken } = cred.credentials;
  if (!accountSid || !authToken) return fallback();
  return {
    accountSid,
    authToken,
    from: cred.credentials.from ?? null,
    messagingServiceSid: cred.credentials.messagingServiceSid ?? null,
    credentialSource: "platform",
    connectionId: null,
  };
}

export interface SmsAnswer {
  status: "accepted" | "rejected" | "failed";
  /** The provider's HTTP status; null when no answer came. */
  responseCode: number | null;
  /** What the provider said, e.g. `queued` or `error 21211: Invalid 'To' Phone Number`. */
  response: string | null;
  /** Twilio's message sid (`SM…`) when it took the message. */
  sid: string | null;
  segments: number | null;
}

/** Statuses of a created Message that mean it will not be delivered. */
const REFUSED = new Set(["failed", "undelivered", "canceled"]);

/** The largest provider answer read: a Message resource is about 1 KiB. */
const MAX_ANSWER_BYTES = 64 * 1024;

function str(v: unknown): string | null {
  return typeof v === "string" && v.length > 0 ? v : null;
}

function segmentsOf(v: unknown): number | null {
  const n = typeof v === "number" ? v : typeof v === "string" && /^[0-9]{1,4}$/.test(v) ? Number(v) : Number.NaN;
  return Number.isInteger(n) && n > 0 ? n : null;
}

/** Twilio's error body `{code, message}`, or a problem document `{title, detail, validation}`. */
function errorText(body: Record<string, unknown> | null, httpStatus: number): string {
  if (!body) return `HTTP ${httpStatus} with no readable body`;
  if (body.code !== undefined && str(body.message)) return `error ${String(body.code)}: ${body.message}`;
  const parts = [str(body.title), str(body.detail)].filter((p) => p !== null);
  if (Array.isArray(body.validation))
    for (const v of body.validation) if (str(v?.message)) parts.push(String(v.message));
  return parts.length > 0 ? parts.join("; ") : `HTTP ${httpStatus}`;
}

/**
 * Sends one SMS to one number; never throws for the provider's refusal (it is this recipient's
 * answer). Twilio answers 400 with an error code for a message it refuses (an invalid or
 * unsubscribed number: `rejected`); any other failure (auth, account, throttling, outage, no
 * answer) means the message could not be offered (`failed`).
 */
export async function sendSms(
  baseUrl: string,
  account: SmsAccount,
  msg: { to: string; from: string | null; body: string },
  timeoutMs: number,
): Promise<SmsAnswer> {
  let base = baseUrl;
  while (base.endsWith("/")) base = base.slice(0, -1);
  const url = `${base}/2010-04-01/Accounts/${encodeURIComponent(account.accountSid)}/Messages.json`;
  const form = new URLSearchParams({ To: msg.to, Body: msg.body });
  const from = msg.from ?? account.from;
  if (from) form.set("From", from);
  else if (account.messagingServiceSid) form.set("MessagingServiceSid", account.messagingServiceSid);
  let res: Response;
  try {
    res = await fetch(url, {
      method: "POST",
      headers: {
        authorization: `Basic ${Buffer.from(`${account.accountSid}:${account.authToken}`).toString("base64")}`,
        "content-type": "application/x-www-form-urlencoded",
        accept: "application/json",
      },
      body: form.toString(),
      signal: stopsWithCall(AbortSignal.timeout(timeoutMs)),
      redirect: "error",
    });
  } catch (err) {
    const e = err as { name?: string; cause?: { code?: string } };
    const why = e.name === "TimeoutError" ? `no answer within ${timeoutMs} ms` : (e.cause?.code ?? e.name ?? "error");
    return {
      status: "failed",
      responseCode: null,
      response: `Twilio could not be reached: ${why}`,
      sid: null,
      segments: null,
    };
  }
  const raw = (await res.text().catch(() => "")).slice(0, MAX_ANSWER_BYTES);
  let body: Record<string, unknown> | null = null;
  try {
    const parsed = JSON.parse(raw);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) body = parsed;
  } catch {
    body = null;
  }
  if (res.ok && body) {
    const status = str(body.status) ?? "accepted";
    const sid = str(body.sid);
    if (REFUSED.has(status)) {
      const code = body.error_code ?? "none";
      return {
        status: "rejected",
        responseCode: res.status,
        response: `${status}: error ${String(code)}${str(body.error_message) ? `: ${body.error_message}` : ""}`,
        sid,
        segments: null,
      };
    }
    return {
      status: "accepted",
      responseCode: res.status,
      response: status,
      sid,
      segments: segmentsOf(body.num_segments),
    };
  }
  const refused = res.status === 400 && body !== null && body.code !== undefined;
  return {
    status: refused ? "rejected" : "failed",
    responseCode: res.status,
    response: res.ok ? `HTTP ${res.status} with no Message resource` : errorText(body, res.status),
    sid: null,
    segments: null,
  };
}
