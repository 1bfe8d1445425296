/**
 * @module kit/grpc-frame
 * gRPC's message framing over HTTP/2, shared by the kit's client and server: a 1-byte
 * "compressed" flag, a 4-byte big-endian length, then the protobuf message. Unary calls carry
 * exactly one message each way; nothing here compresses.
 */

/** The largest message either side takes (the limit grpc-js was configured with before). */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** One uncompressed, length-prefixed message. */
export function frameMessage(message: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(5 + message.length);
  frame[0] = 0;
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return frame;
}

/** The one message a unary body holds, or why it holds none: not exactly one frame, or compressed. */
export function unframeMessage(chunks: Buffer[]): Buffer | "malformed" | "compressed" {
  const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
  if (body.length < 5 || body.readUInt32BE(1) !== body.length - 5) return "malformed";
  if (body[0] !== 0) return "compressed";
  return body.subarray(5);
}

/**
 * Splits a stream's DATA chunks into its length-prefixed messages, for streams that carry many
 * (kit/grpc-multiplex). Chunks are kept until a message is whole and joined once, so a large
 * message arriving in many chunks is copied once, not once per chunk. Once it has refused a
 * message (too large, compressed) it keeps nothing more: a peer that goes on sending after the
 * refusal costs no memory (it used to be buffered without end).
 */
export class MessageReader {
  private chunks: Buffer[] = [];
  private size = 0;
  private refused: "too-large" | "compressed" | undefined;
  /** Bytes the message being read needs, prefix included; -1 until its prefix is in. */
  private need = -1;
  private readonly onMessage: (message: Buffer) => void;
  private readonly maxBytes: number;

  constructor(onMessage: (message: Buffer) => void, maxBytes = MAX_MESSAGE_BYTES) {
    this.onMessage = onMessage;
    this.maxBytes = maxBytes;
  }

  /** Takes one chunk; anything but "ok" leaves the stream unreadable, and it is to be ended. */
  push(chunk: Buffer): "ok" | "too-large" | "compressed" {
    if (this.refused) return this.refused;
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size >= 5) {
      if (this.need < 0) {
        const head = this.chunks[0].length >= 5 ? this.chunks[0] : this.join();
        if (head[0] !== 0) return this.refuse("compressed");
        const length = head.readUInt32BE(1);
        if (length > this.maxBytes) return this.refuse("too-large");
        this.need = 5 + length;
      }
      if (this.size < this.need) return "ok";
      const all = this.join();
      const message = all.subarray(5, this.need);
      const rest = all.subarray(this.need);
      this.chunks = rest.length > 0 ? [rest] : [];
      this.size = rest.length;
      this.need = -1;
      this.onMessage(message);
    }
    return "ok";
  }

  /** Bytes held for the message being read. */
  get buffered(): number {
    return this.size;
  }

  private refuse(why: "too-large" | "compressed"): "too-large" | "compressed" {
    this.refused = why;
    this.chunks = [];
    this.size = 0;
    return why;
  }

  private join(): Buffer {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks, this.size)];
    return this.chunks[0];
  }
}
