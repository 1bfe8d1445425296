/**
 * @module kit/lessons-reader
 * The client side of `gantry.memory.v1.Lessons` (proto/gantry/memory/v1/lessons.proto): how an area
 * service (trust for plan.create, content for skill.load guardrails) reads a tenant's consolidated
 * lessons, which the memory service makes of the lessons inbox. Its messages are generated from the
 * .proto (kit/src/generated/grpc.ts) and re-exported here under the names server and callers use. Memory serves it only to the
 * callers kit/topology lists, never to the gateway.
 *
 * @example
 * const lessons = lessonsReader(deps.addrs.memory, deps.callKeys.signer("memory"));
 * const critical = await lessons.list({ tenant: call.tenant, min_severity: "critical", request_id: call.requestId });
 */
import { MEMORY_LESSONS_PROTO } from "@gantry/proto/paths";
import { callSignal } from "./call-signal.ts";
import type { CallSigner } from "./call-auth.ts";
import { makeClient } from "./grpc.ts";
import type { ConsolidatedLesson, ListConsolidatedRequestInit } from "./generated/grpc.ts";

export type { ListConsolidatedRequest, ConsolidatedLesson as ConsolidatedLessonWire } from "./generated/grpc.ts";

export interface LessonsReaderClient {
  /** Rejects with the memory service's GantryError (`unavailable` when memory cannot be reached). */
  list(req: ListConsolidatedRequestInit): Promise<ConsolidatedLesson[]>;
  close(): void;
}

/** Deadline of one read: a query is embedded by memory's model, which may have to load first. */
const LIST_DEADLINE_MS = 10_000;

/** `signer`: the calling service's key for memory, which serves only the callers kit/topology lists. */
export function lessonsReader(addr: string, signer: CallSigner | undefined): LessonsReaderClient {
  const client = makeClient(MEMORY_LESSONS_PROTO, "gantry.memory.v1.Lessons", addr, { signer });
  return {
    list: async (req) =>
      (
        await client.unary("ListConsolidated", req, {
          deadlineMs: LIST_DEADLINE_MS,
          // Stops when the call it reads for does (kit/call-signal).
          signal: callSignal(),
        })
      ).lessons,
    close: () => client.close(),
  };
}
