/**
 * @module content/messages
 * One email send, recorded: the route is chosen (mail.ts), the message and a row per recipient are
 * stored as `sending` together with the idempotency record (kit/src/data/idempotency.ts: the same
 * idempotencyKey and input answers the first message again, never a second send), then the message
 * is handed to SMTP, or kept in the outbox, and every recipient's answer is written back.
 *
 * An SMS (sms.ts) is recorded the same way: every recipient is its own message at the provider, sent
 * ten at a time, and its row keeps the provider's answer, message id and segments.
 *
 * A replay that arrives while the first call is still sending waits for it (up to twice the SMTP
 * timeout, or as long as an SMS to every recipient can take) and answers its outcome, or 409 if it is
 * still not done.
 */
import { GantryError, type CallContext, idempotentCreate } from "@gantry/kit";
import type { Context } from "./context.ts";
import { type Delivery, type DeliveryRecipient, type Prisma, SCHEMA } from "./db.ts";
import { newId } from "./ids.ts";
import { deliver, routeFor } from "./mail.ts";
import { type SmsAnswer, sendSms, smsAccountFor } from "./sms.ts";

export interface EmailRequest {
  to: string | string[];
  cc?: string[];
  bcc?: string[];
  subject: string;
  text?: string;
  html?: string;
  from?: string;
  replyTo?: string;
  idempotencyKey?: string;
}

/** More recipients than this in one message (to + cc + bcc) is refused. */
export const MAX_RECIPIENTS = 100;

type Row = Delivery & { recipients: DeliveryRecipient[] };

export function messageOut(row: Row) {
  const recipients = [...row.recipients].sort((a, b) => a.position - b.position);
  return {
    id: row.id,
    tenant: row.tenant,
    channel: row.channel as "email" | "sms",
    status: row.status as "sent" | "partially_sent" | "failed" | "captured",
    transport: row.transport as "smtp" | "outbox" | "twilio",
    from: row.fromAddress,
    subject: row.subject,
    recipients: recipients.map((r) => ({
      address: r.address,
      field: r.field as "to" | "cc" | "bcc",
      status: r.status as "accepted" | "rejected" | "failed" | "captured",
      responseCode: r.responseCode,
      response: r.response,
      providerMessageId: r.providerMessageId,
    })),
    messageId: row.status === "failed" ? null : row.messageId,
    segments: row.channel === "sms" ? (recipients.find((r) => r.segments !== null)?.segments ?? null) : null,
    credentialSource: row.credentialSource as "tenant" | "platform",
    vertical: row.vertical,
    requestId: row.requestId,
    created: row.createdAt.toISOString(),
    sent: row.sentAt?.toISOString() ?? null,
  };
}

async function readMessage(ctx: Context, id: string, waitMs: number): Promise<Row> {
  const until = Date.now() + waitMs;
  for (;;) {
    const row = await ctx.db.delivery.findFirst({ where: { id }, include: { recipients: true } });
    if (!row) throw new GantryError("not_found", `Message ${id} does not exist.`);
    if (row.status !== "sending" || Date.now() > until) return row;
    await new Promise((r) => setTimeout(r, 200));
  }
}

function domainOf(from: string): string {
  const m = /@([^>\s@]+)>?\s*$/.exec(from);
  return m ? m[1].toLowerCase() : "gantry.invalid";
}

type NewDelivery = Omit<
  Prisma.DeliveryUncheckedCreateInput,
  "id" | "tenant" | "status" | "vertical" | "requestId" | "createdAt" | "recipients"
>;

/**
 * Stores message `id` as `sending` with a `pending` row per recipient, together with its idempotency
 * record. A replay of the key answers the first message instead (waiting up to `waitMs` while it is
 * still sending, then 409), so nothing is sent twice.
 */
async function recordSend(
  ctx: Context,
  call: CallContext,
  ability: string,
  idempotency: { input: object; key: string | undefined; waitMs: number },
  id: string,
  delivery: NewDelivery,
  recipients: Array<{ address: string; field: "to" | "cc" | "bcc" }>,
): Promise<{ replay: Row | null }> {
  const { result, created: fresh } = await idempotentCreate({
    db: ctx.db,
    schema: SCHEMA,
    call,
    ability,
    input: idempotency.input,
    recordId: id,
    create: async (tx) => {
      await tx.delivery.create({
        data: {
          ...delivery,
          id,
          tenant: call.tenant,
          status: "sending",
          vertical: call.verticalId ?? null,
          requestId: call.requestId,
          createdAt: new Date(ctx.now()),
          recipients: {
            create: recipients.map((r, position) => ({ tenant: call.tenant, position, ...r, status: "pending" })),
          },
        },
      });
      return id;
    },
    replay: async (recordId) => recordId,
  });
  if (fresh) return { replay: null };
  const first = await readMessage(ctx, result, idempotency.waitMs);
  if (first.status === "sending")
    throw new GantryError(
      "conflict",
      `The first ${ability} call with idempotencyKey "${idempotency.key}" is still sending (${first.id}); retry shortly to get its result.`,
    );
  return { replay: first };
}

export async function sendEmail(
  ctx: Context,
  call: CallContext,
  ability: string,
  input: EmailRequest,
  idempotencyInput: object,
) {
  const to = Array.isArray(input.to) ? input.to : [input.to];
  const cc = input.cc ?? [];
  const bcc = input.bcc ?? [];
  const list: Array<{ address: string; field: "to" | "cc" | "bcc" }> = [
    ...to.map((address) => ({ address, field: "to" as const })),
    ...cc.map((address) => ({ address, field: "cc" as const })),
    ...bcc.map((address) => ({ address, field: "bcc" as const })),
  ];
  if (list.length > MAX_RECIPIENTS)
    throw new GantryError(
      "validation_failed",
      `A message may have at most ${MAX_RECIPIENTS} recipients in to, cc and bcc together (it has ${list.length}); split it into several messages.`,
      { details: [{ path: "/input/to", message: `at most ${MAX_RECIPIENTS} recipients in all`, code: "maxItems" }] },
    );

  const route = await routeFor(ctx, call);
  const from = input.from ?? route.defaultFrom ?? ctx.config.CONTENT_SMTP_FROM;
  const id = newId("message");
  const messageId = `<${id}@${domainOf(from)}>`;

  const { replay } = await recordSend(
    ctx,
    call,
    ability,
    { input: idempotencyInput, key: input.idempotencyKey, waitMs: ctx.config.CONTENT_SMTP_TIMEOUT_MS * 2 },
    id,
    {
      channel: "email",
      transport: route.kind,
      credentialSource: route.credentialSource,
      connectionId: route.connectionId,
      fromAddress: from,
      replyTo: input.replyTo ?? null,
      subject: input.subject,
      textBody: input.text ?? null,
      htmlBody: input.html ?? null,
      messageId,
    },
    list,
  );
  if (replay) return messageOut(replay);

  if (route.kind === "outbox") {
    ctx.log.warn({ messageId: id, tenant: call.tenant }, "no SMTP server configured: message captured in the outbox");
    await ctx.db.$transaction([
      ctx.db.deliveryRecipient.updateMany({ where: { deliveryId: id }, data: { status: "captured" } }),
      ctx.db.delivery.update({ where: { id }, data: { status: "captured" } }),
    ]);
    return messageOut(await readMessage(ctx, id, 0));
  }

  const outcome = await deliver(
    route,
    {
      messageId,
      from,
      replyTo: input.replyTo,
      to,
      cc,
      bcc,
      subject: input.subject,
      text: input.text,
      html: input.html,
    },
    ctx.config.CONTENT_SMTP_TIMEOUT_MS,
  );
  const statuses = list.map(
    (r) =>
      outcome.answers.get(r.address.toLowerCase()) ?? { status: "failed" as const, responseCode: null, response: null },
  );
  const accepted = statuses.filter((s) => s.status === "accepted").length;
  const status = accepted === list.length ? "sent" : accepted > 0 ? "partially_sent" : "failed";
  await ctx.db.$transaction([
    ...statuses.map((s, position) =>
      ctx.db.deliveryRecipient.update({
        where: { deliveryId_position: { deliveryId: id, position } },
        data: { status: s.status, responseCode: s.responseCode, response: s.response?.slice(0, 1000) ?? null },
      }),
    ),
    ctx.db.delivery.update({
      where: { id },
      data: {
        status,
        sentAt: accepted > 0 ? new Date(ctx.now()) : null,
        error: accepted > 0 ? null : (outcome.error ?? "Every recipient was refused."),
      },
    }),
  ]);
  if (accepted === 0) ctx.log.warn({ messageId: id, error: outcome.error }, "no recipient accepted the message");
  return messageOut(await readMessage(ctx, id, 0));
}

export interface SmsRequest {
  to: string | string[];
  text: string;
  from?: string;
  idempotencyKey?: string;
}

/** Requests to the SMS provider at once: enough to be quick for 50 numbers, few enough not to be throttled. */
const SMS_CONCURRENCY = 10;

export async function sendSmsMessage(ctx: Context, call: CallContext, ability: string, input: SmsRequest) {
  const to = Array.isArray(input.to) ? input.to : [input.to];
  const account = await smsAccountFor(ctx, call);
  const from = input.from ?? account.from;
  if (!from && !account.messagingServiceSid)
    throw new GantryError(
      "validation_failed",
      "The SMS account has no default sender: name one in from (a number of the account in E.164, or an alphanumeric sender id).",
      { details: [{ path: "/input/from", message: "required: the account has no default sender", code: "required" }] },
    );
  const id = newId("message");
  const { replay } = await recordSend(
    ctx,
    call,
    ability,
    {
      input,
      key: input.idempotencyKey,
      waitMs: ctx.config.TWILIO_TIMEOUT_MS * Math.ceil(to.length / SMS_CONCURRENCY),
    },
    id,
    {
      channel: "sms",
      transport: "twilio",
      credentialSource: account.credentialSource,
      connectionId: account.connectionId,
      fromAddress: from ?? account.messagingServiceSid ?? "",
      textBody: input.text,
    },
    to.map((address) => ({ address, field: "to" as const })),
  );
  if (replay) return messageOut(replay);

  const answers: SmsAnswer[] = [];
  for (let i = 0; i < to.length; i += SMS_CONCURRENCY)
    answers.push(
      ...(await Promise.all(
        to
          .slice(i, i + SMS_CONCURRENCY)
          .map((number) =>
            sendSms(
              ctx.config.TWILIO_API_URL,
              account,
              { to: number, from: input.from ?? null, body: input.text },
              ctx.config.TWILIO_TIMEOUT_MS,
            ),
          ),
      )),
    );
  const accepted = answers.filter((a) => a.status === "accepted");
  const status = accepted.length === to.length ? "sent" : accepted.length > 0 ? "partially_sent" : "failed";
  await ctx.db.$transaction([
    ...answers.map((a, position) =>
      ctx.db.deliveryRecipient.update({
        where: { deliveryId_position: { deliveryId: id, position } },
        data: {
          status: a.status,
          responseCode: a.responseCode,
          response: a.response?.slice(0, 1000) ?? null,
          providerMessageId: a.sid,
          segments: a.segments,
        },
      }),
    ),
    ctx.db.delivery.update({
      where: { id },
      data: {
        status,
        messageId: accepted[0]?.sid ?? null,
        sentAt: accepted.length > 0 ? new Date(ctx.now()) : null,
        error: accepted.length > 0 ? null : (answers[0]?.response?.slice(0, 1000) ?? "No recipient was accepted."),
      },
    }),
  ]);
  if (accepted.length === 0)
    ctx.log.warn({ messageId: id, error: answers[0]?.response }, "the SMS provider accepted no recipient");
  return messageOut(await readMessage(ctx, id, 0));
}
