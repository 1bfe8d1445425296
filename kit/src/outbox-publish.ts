/**
 * @module kit/outbox-publish
 * The outbox relay's JetStream publishes: a round's messages written to the connection one after
 * the other, and their acknowledgements taken by one reply subscription the relay keeps, under one
 * timer for the round. `js.publish` does the same work one request at a time: a request object, a
 * timer, a headers object and a promise per message, and nats.js builds a `RequestError("cancelled")`
 * when each answered request is cleaned up. Here a message costs its headers' bytes, one `publish`
 * and an entry in a map (kit README, *Messaging*, for the figures).
 *
 * What a publish means is unchanged: JetStream answers each message on its reply subject once it
 * has stored it (or knows it as a duplicate of its `Nats-Msg-Id`), with an error it refused, or
 * with no-responders (503) when no stream takes the subject. A message is sent only once, in the
 * order given, so the server stores them in that order as before.
 */
import { createInbox, type Msg, type MsgHdrs, type Subscription } from "@nats-io/transport-node";
import type { Nats } from "./nats.ts";

export interface JetStreamMessage {
  subject: string;
  data: Uint8Array;
  /** `Nats-Msg-Id`: JetStream drops a message whose id it stored within the stream's duplicate window. */
  msgId: string;
}

export interface JetStreamBatchPublisher {
  /**
   * Publishes `messages` at once and resolves, when each is answered or `timeoutMs` has passed, to
   * what became of each: `undefined` when JetStream stored it, otherwise its error. Never rejects.
   */
  publishAll(messages: readonly JetStreamMessage[], timeoutMs: number): Promise<(Error | undefined)[]>;
  /** Ends the reply subscription; a later `publishAll` makes a new one. */
  close(): void;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const MSG_ID_HEADER = encoder.encode("NATS/1.0\r\nNats-Msg-Id: ");
const HEADER_END = encoder.encode("\r\n\r\n");
const LINE_BREAK = /[\r\n]/;

/**
 * A message's headers as nats.js writes them (it calls only `encode()` on a publish's headers):
 * the bytes made at once, without a headers object and its map for one field.
 */
function msgIdHeaders(msgId: string): MsgHdrs {
  // A line break would end the header early, and what followed would be read as the message.
  if (LINE_BREAK.test(msgId)) throw new Error(`a Nats-Msg-Id cannot hold a line break: ${JSON.stringify(msgId)}`);
  const id = encoder.encode(msgId.trim());
  const bytes = new Uint8Array(MSG_ID_HEADER.length + id.length + HEADER_END.length);
  bytes.set(MSG_ID_HEADER);
  bytes.set(id, MSG_ID_HEADER.length);
  bytes.set(HEADER_END, MSG_ID_HEADER.length + id.length);
  return { encode: () => bytes } as unknown as MsgHdrs;
}

/** What JetStream's answer says of the message: `undefined` when stored (or a known duplicate). */
function ackError(subject: string, msg: Msg): Error | undefined {
  if (msg.data.length === 0) {
    return new Error(
      msg.headers?.code === 503
        ? `no JetStream stream takes subject ${subject} (no responders)`
        : `empty JetStream answer for ${subject} (${msg.headers?.code ?? "no status"})`,
    );
  }
  let ack: { stream?: string; error?: { code?: number; err_code?: number; description?: string } };
  try {
    ack = JSON.parse(decoder.decode(msg.data));
  } catch {
    return new Error(`unreadable JetStream answer for ${subject}`);
  }
  if (ack.error) {
    return new Error(
      `JetStream refused ${subject}: ${ack.error.description ?? "no description"} (${ack.error.code ?? "?"}/${ack.error.err_code ?? "?"})`,
    );
  }
  return ack.stream ? undefined : new Error(`invalid JetStream answer for ${subject}`);
}

/** A publisher on `nats.nc`, its acknowledgements taken under `nats.inboxPrefix` (kit/nats.ts). */
export function jetStreamBatchPublisher({
  nc,
  inboxPrefix,
}: Pick<Nats, "nc" | "inboxPrefix">): JetStreamBatchPublisher {
  /** The reply subjects' common part: `<inbox>.`; a message's own is that and a token. */
  let inbox = "";
  let sub: Subscription | undefined;
  /** Unanswered messages by token: what to do with their answer. */
  const waiting = new Map<string, (err: Error | undefined, msg?: Msg) => void>();
  let nextToken = 0;

  const subscribe = (): void => {
    if (sub && !sub.isClosed()) return;
    // A login may subscribe only under its own inbox (kit/nats.ts).
    inbox = `${createInbox(inboxPrefix)}.`;
    sub = nc.subscribe(`${inbox}*`, {
      callback: (err, msg) => {
        if (err) {
          // The subscription failed (a permission, the connection): every message still waiting fails.
          for (const settle of waiting.values()) settle(err);
          waiting.clear();
          return;
        }
        const token = msg.subject.slice(inbox.length);
        const settle = waiting.get(token);
        if (!settle) return; // answered after its round gave up on it
        waiting.delete(token);
        settle(undefined, msg);
      },
    });
  };

  const publishAll = (messages: readonly JetStreamMessage[], timeoutMs: number): Promise<(Error | undefined)[]> => {
    const outcomes: (Error | undefined)[] = new Array(messages.length);
    if (messages.length === 0) return Promise.resolve(outcomes);
    return new Promise((resolve) => {
      const tokens: string[] = [];
      let left = messages.length;
      let timer: NodeJS.Timeout | undefined;
      const done = (i: number, err: Error | undefined): void => {
        outcomes[i] = err;
        if (--left === 0) {
          clearTimeout(timer);
          resolve(outcomes);
        }
      };
      try {
        subscribe();
      } catch (err) {
        // A closed connection: nothing can be sent.
        for (let i = 0; i < messages.length; i++) done(i, err as Error);
        return;
      }
      for (let i = 0; i < messages.length; i++) {
        const { subject, data, msgId } = messages[i];
        const token = (nextToken++).toString(36);
        tokens.push(token);
        waiting.set(token, (err, msg) => done(i, err ?? ackError(subject, msg as Msg)));
        try {
          nc.publish(subject, data, { reply: inbox + token, headers: msgIdHeaders(msgId) });
        } catch (err) {
          // Not sent (a bad subject, too large, the connection closed): this message fails alone.
          waiting.delete(token);
          done(i, err as Error);
        }
      }
      if (left === 0) return;
      timer = setTimeout(() => {
        for (let i = 0; i < tokens.length; i++) {
          if (waiting.delete(tokens[i])) done(i, new Error(`no JetStream answer within ${timeoutMs} ms`));
        }
      }, timeoutMs);
    });
  };

  return {
    publishAll,
    close: () => {
      // On a closed connection its subscriptions are gone with it.
      if (sub && !sub.isClosed()) sub.unsubscribe();
      sub = undefined;
    },
  };
}
