/**
 * @module trust/memory
 * The memory service, called over gRPC by ability id for the caller (never by reading its tables):
 * `decision.list` for the decisions a plan must respect, `lesson.record` for the lessons plan.learn
 * appends to the lessons inbox. The call keeps the caller's context (tenant, key, request id), so
 * memory scopes and records it as the caller's, and what is left of its deadline and its signal
 * (kit/call-signal `forwardCall`): a caller that gave up stops memory's work too. The calls are
 * signed as trust's own (kit/call-auth): memory runs only these two abilities for it. The tenant's
 * consolidated lessons (what memory's lessons consumer makes of that inbox) are read through
 * memory's typed `gantry.memory.v1.Lessons` RPC (kit/lessons-reader), which the gateway cannot call.
 */
import { type CallContext, type CallSigner, forwardCall, makeClient, toGrpcContext, type RpcClient } from "@gantry/kit";
import { type ConsolidatedLessonWire, type LessonsReaderClient, lessonsReader } from "@gantry/kit/lessons-reader.ts";
import type { InputOf, OutputOf } from "@gantry/proto/catalogue";
import { ABILITY_PROTO } from "@gantry/proto/paths";

export class MemoryClient {
  private readonly client: RpcClient<"gantry.ability.v1.AbilityService">;
  private readonly lessons: LessonsReaderClient;

  constructor(addr: string, signer: CallSigner | undefined) {
    this.client = makeClient(ABILITY_PROTO, "gantry.ability.v1.AbilityService", addr, { signer });
    this.lessons = lessonsReader(addr, signer);
  }

  private async execute<R>(ability: string, input: unknown, call: CallContext): Promise<R> {
    const res = await this.client.unary(
      "Execute",
      { ability, context: toGrpcContext({ ...call, runId: undefined }), input_json: JSON.stringify(input) },
      forwardCall(call, 10_000),
    );
    return JSON.parse(res.result_json) as R;
  }

  decisions(call: CallContext, input: InputOf<"decision.list">): Promise<OutputOf<"decision.list">> {
    return this.execute("decision.list", input, call);
  }

  recordLesson(call: CallContext, input: InputOf<"lesson.record">): Promise<OutputOf<"lesson.record">> {
    return this.execute("lesson.record", input, call);
  }

  /** The call tenant's consolidated lessons of `minSeverity` or higher that are relevant to `query`. */
  consolidatedLessons(
    call: CallContext,
    query: string,
    minSeverity: "critical" | "high",
    limit: number,
  ): Promise<ConsolidatedLessonWire[]> {
    return this.lessons.list({
      tenant: call.tenant,
      min_severity: minSeverity,
      query,
      limit,
      request_id: call.requestId,
    });
  }

  close(): void {
    this.lessons.close();
    this.client.close();
  }
}
