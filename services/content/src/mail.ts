/**
 * @module content/mail
 * Which SMTP server a tenant's email leaves through, and the one delivery over it (nodemailer).
 *
 * The connections service answers first (`ResolveCredential(tenant, "email")`):
 * - the tenant's own `email` connection (OAuth): XOAUTH2 on `CONTENT_OAUTH_SMTP_URL`, the
 *   connection's external ref (its mailbox) as user — `credentialSource: "tenant"`;
 * - else the platform account configured there (`CONNECTIONS_PLATFORM_ACCOUNTS.email`), whose
 *   fields `smtpUrl` (and optionally `from`) name the server — `credentialSource: "platform"`;
 * - when connections has neither (`not_found`), the platform server of this service,
 *   `CONTENT_SMTP_URL`, and without that the **outbox** (stored, never delivered, `captured`).
 *
 * Connections being unreachable is an error (503), never a silent switch from a tenant's own
 * connection to the platform account.
 *
 * Per-recipient answers: a recipient refused at `RCPT TO` carries that reply (e.g. 550); an
 * accepted one carries the server's reply to the message data (e.g. `250 OK queued`), which is
 * when the server takes responsibility for it. A connection or protocol failure fails every
 * recipient not yet answered.
 */
import type { createTransport as CreateTransport } from "nodemailer";
import { GantryError, type CallContext, type ResolvedCredential } from "@gantry/kit";
import type { Context } from "./context.ts";

export type Route =
  | {
      kind: "smtp";
      url: string;
      oauth?: { user: string; accessToken: string };
      credentialSource: "tenant" | "platform";
      connectionId: string | null;
      defaultFrom: string | null;
    }
  | { kind: "outbox"; credentialSource: "platform"; connectionId: null; defaultFrom: null };

function isCode(err: unknown, code: string): boolean {
  return (err as { code?: unknown })?.code === code;
}

/**
 * What the connections service answers for `service` (the tenant's connection or the platform
 * account), or null when it has neither. Unreachable is a 503, never a silent fallback.
 */
export async function resolveAccount(
  ctx: Context,
  call: CallContext,
  service: "email" | "sms",
): Promise<ResolvedCredential | null> {
  try {
    return await ctx.credentials.resolve(call.tenant, service, call.requestId);
  } catch (err) {
    if (isCode(err, "not_found")) return null;
    throw new GantryError(
      "unavailable",
      `The connections service could not say which ${service === "sms" ? "SMS" : "email"} account to use; nothing was sent. Try again shortly.`,
      { cause: err },
    );
  }
}

export async function routeFor(ctx: Context, call: CallContext): Promise<Route> {
  const fallback = (): Route =>
    ctx.config.CONTENT_SMTP_URL
      ? {
          kind: "smtp",
          url: ctx.config.CONTENT_SMTP_URL,
          credentialSource: "platform",
          connectionId: null,
          defaultFrom: null,
        }
      : { kind: "outbox", credentialSource: "platform", connectionId: null, defaultFrom: null };
  const cred = await resolveAccount(ctx, call, "email");
  if (!cred) return fallback();
  if (cred.credential_source === "tenant") {
    if (!ctx.config.CONTENT_OAUTH_SMTP_URL)
      throw new GantryError(
        "unavailable",
        "Your email connection cannot be used: this deployment has no SMTP server for connected mailboxes (CONTENT_OAUTH_SMTP_URL). Nothing was sent.",
      );
    return {
      kind: "smtp",
      url: ctx.config.CONTENT_OAUTH_SMTP_URL,
      oauth: { user: cred.external_ref, accessToken: cred.access_token },
      credentialSource: "tenant",
      connectionId: cred.connection_id || null,
      // The mailbox of the connection, when its external ref is an address (providers differ).
      defaultFrom: /^[^\s@<>]+@[^\s@<>.]+(?:\.[^\s@<>.]+)+$/.test(cred.external_ref) ? cred.external_ref : null,
    };
  }
  const smtpUrl = cred.credentials.smtpUrl;
  if (!smtpUrl) return fallback();
  return {
    kind: "smtp",
    url: smtpUrl,
    credentialSource: "platform",
    connectionId: null,
    defaultFrom: cred.credentials.from ?? null,
  };
}

export interface Envelope {
  messageId: string;
  from: string;
  replyTo?: string;
  to: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  text?: string;
  html?: string;
}

export interface RecipientAnswer {
  status: "accepted" | "rejected" | "failed";
  responseCode: number | null;
  response: string | null;
}

export interface SendOutcome {
  /** By lower-cased address. */
  answers: Map<string, RecipientAnswer>;
  /** Sanitized reason when nothing could be offered. */
  error: string | null;
}

interface SmtpError extends Error {
  code?: string;
  responseCode?: number;
  response?: string;
  recipient?: string;
  rejectedErrors?: SmtpError[];
}

const lower = (a: string) => a.toLowerCase();

// Loaded on the first delivery (≈ 20 MiB): the outbox, the default, never needs it.
let nodemailer: Promise<typeof CreateTransport> | undefined;
const loadNodemailer = () => (nodemailer ??= import("nodemailer").then((m) => m.createTransport));

/** Sends one message over SMTP; never throws for a server's refusal (it is an answer per recipient). */
export async function deliver(
  route: Extract<Route, { kind: "smtp" }>,
  mail: Envelope,
  timeoutMs: number,
): Promise<SendOutcome> {
  const createTransport = await loadNodemailer();
  const transport = createTransport({
    url: route.url,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    ...(route.oauth ? { auth: { type: "OAuth2", user: route.oauth.user, accessToken: route.oauth.accessToken } } : {}),
  } as Parameters<typeof CreateTransport>[0]);
  const answers = new Map<string, RecipientAnswer>();
  const all = [...mail.to, ...mail.cc, ...mail.bcc].map(lower);
  const rejectedFrom = (errs: SmtpError[] | undefined) => {
    for (const e of errs ?? [])
      if (e.recipient)
        answers.set(lower(e.recipient), {
          status: "rejected",
          responseCode: e.responseCode ?? null,
          response: e.response ?? null,
        });
  };
  try {
    const info = (await transport.sendMail({
      messageId: mail.messageId,
      from: mail.from,
      replyTo: mail.replyTo,
      to: mail.to,
      cc: mail.cc.length ? mail.cc : undefined,
      bcc: mail.bcc.length ? mail.bcc : undefined,
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
    })) as { accepted: string[]; rejectedErrors?: SmtpError[]; response: string };
    rejectedFrom(info.rejectedErrors);
    const code = Number.parseInt(info.response, 10);
    for (const a of info.accepted.map((x) => lower(String(x))))
      answers.set(a, {
        status: "accepted",
        responseCode: Number.isFinite(code) ? code : null,
        response: info.response,
      });
    return { answers, error: null };
  } catch (thrown) {
    const err = thrown as SmtpError;
    rejectedFrom(err.rejectedErrors);
    if (err.recipient && !answers.has(lower(err.recipient))) rejectedFrom([err]);
    const reason =
      err.responseCode && err.response
        ? `The SMTP server refused the message: ${err.response}`
        : `The SMTP server could not be reached or failed (${err.code ?? "error"}).`;
    for (const a of all)
      if (!answers.has(a))
        answers.set(a, {
          status: "failed",
          responseCode: err.responseCode ?? null,
          response: err.response ?? null,
        });
    return { answers, error: reason };
  } finally {
    transport.close();
  }
}
