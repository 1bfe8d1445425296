/**
 * @module catalogue/workspace/event
 * The workspace service's abilities of the `event` area (Events: substrate events for other systems to react to).
 * `proto/catalogue/workspace.ts` assembles the service's areas in order.
 */
import type { AbilityEntry } from "../types.ts";
import { freeObject, object, text } from "../schema.ts";
import { fields, int, str, timestamp } from "../output.ts";

/** Event names: dot-separated tokens of letters, digits, `_` and `-`; no wildcards (`*`, `>`). */
const EVENT_NAME_PATTERN = "^[A-Za-z0-9_-]+(?:\\.[A-Za-z0-9_-]+)*$";

export const abilities = [
  {
    id: "event.emit",
    summary: "Emit a named substrate event with an optional payload, durably, for other systems to react to.",
    inputSource: "spec",
    input: object(
      {
        event: text(
          "Event name: dot-separated tokens of letters, digits, _ and - (no wildcards), e.g. `booking.confirmed`.",
          128,
          { pattern: EVENT_NAME_PATTERN },
        ),
        payload: freeObject(
          "Event data (JSON object). At most 64 KiB serialized by default (the service's EVENT_MAX_PAYLOAD_BYTES); larger payloads are refused with 413.",
        ),
      },
      ["event"],
    ),
    output: fields(
      {
        id: str("Event id (`evt_…`); also the JetStream message id, so a retried publish is stored once."),
        subject: str("NATS subject the event was published on (`events.<tenant token>.<event>`)."),
        sequence: int("Sequence number of the event in the stream."),
        stream: str("JetStream stream that stored the event (`EVENTS`)."),
        emitted: timestamp("When the event was emitted (RFC 3339, UTC); also in the published envelope."),
      },
      [],
      { description: "Where the event was stored." },
    ),
    example: { event: "booking.confirmed", payload: { bookingId: "bk_1042", startsAt: "2026-06-03T09:30:00Z" } },
  },
] as const satisfies readonly AbilityEntry[];
