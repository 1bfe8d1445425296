/**
 * @module workspace/abilities/event.emit
 * Publishes a tenant event durably to JetStream on `events.<tenant token>.<event>` (stream EVENTS;
 * the tenant token scheme is `tenantToken` in kit/src/nats.ts). The message is the envelope
 * `{id, tenant, event, payload, emitted, keyId, requestId, vertical}`; its JetStream msgID is the
 * event id, so a retried publish within the stream's duplicate window is stored once.
 */
import type { PubAck } from "@nats-io/jetstream";
import { GantryError, encodeJson, eventSubject } from "@gantry/kit";
import { ability } from "../context.ts";
import { newId } from "../ids.ts";

export interface EventEnvelope {
  id: string;
  tenant: string;
  event: string;
  payload: Record<string, unknown>;
  emitted: string;
  keyId: string | null;
  requestId: string | null;
  vertical: string | null;
}

export default ability("event.emit", async (input, call, ctx) => {
  const payload = input.payload ?? {};
  const size = Buffer.byteLength(JSON.stringify(payload));
  const max = ctx.config.EVENT_MAX_PAYLOAD_BYTES;
  if (size > max) {
    throw new GantryError("payload_too_large", `The event payload is ${size} bytes serialized; the limit is ${max}.`, {
      details: [
        {
          path: "/input/payload",
          message: `/input/payload is ${size} bytes serialized, more than ${max}`,
          code: "payload_too_large",
          limit: max,
          size,
        },
      ],
    });
  }
  const id = newId("event");
  const subject = eventSubject(call.tenant, input.event);
  const envelope: EventEnvelope = {
    id,
    tenant: call.tenant,
    event: input.event,
    payload,
    emitted: ctx.now().toISOString(),
    keyId: call.keyId || null,
    requestId: call.requestId || null,
    vertical: call.verticalId ?? null,
  };
  let ack: PubAck;
  try {
    ack = await ctx.nats.js.publish(subject, encodeJson(envelope), { msgID: id, expect: { streamName: "EVENTS" } });
  } catch (err) {
    throw new GantryError("unavailable", "The event stream is unavailable; the event was not emitted. Retry shortly.", {
      retryAfterMs: 1_000,
      cause: err,
    });
  }
  return { id, subject, sequence: ack.seq, stream: ack.stream, emitted: envelope.emitted };
});
