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
