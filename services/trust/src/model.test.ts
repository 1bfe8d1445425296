/**
 * The plan drafter against a local server speaking the OpenAI chat-completions wire format: what
 * the service sends (model, bearer key, JSON mode, the goal), a usable draft becoming a `model`
 * plan whose phase with a known action input gets a run with a permit for exactly that input
 * (consumed here through the PermitGate RPC, as the gateway does), verification hash-matched
 * against that input, and unusable drafts or a failing endpoint falling back to the template.
 */
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { canonicalJson, makeClient, sha256Hex, type RpcClient } from "@gantry/kit";
import { startService, type ServiceHarness } from "@gantry/infra/testing/service.ts";
import { TRUST_PROTO } from "@gantry/proto/paths";
import type { Context } from "./context.ts";

let s: ServiceHarness<Context>;
let server: Server;
let gate: RpcClient<"gantry.trust.v1.PermitGate">;
let answer: { status: number; content: string };
const requests: { url: string; auth: string | undefined; body: any }[] = [];

const draft = {
  phases: [
    {
      id: "p1-record",
      title: "Record the customer",
      description: "Create the customer's contact.",
      dependsOn: [],
      checks: ["The contact exists"],
      actions: [{ ability: "contact.create", input: { name: "Ada Lovelace" } }],
    },
    {
      id: "p2-follow-up",
      title: "Follow up",
      description: "Plan the follow-up call.",
      dependsOn: ["p1-record"],
      checks: [],
      actions: [{ ability: "task.create", input: null }],
    },
  ],
};

function reply(content: string) {
  return {
    id: "chatcmpl-1",
    object: "chat.completion",
    created: 1_700_000_000,
    model: "planner-1",
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString();
}

before(async () => {
  server = createServer(async (req, res) => {
    const body = JSON.parse(await readBody(req));
    requests.push({ url: req.url ?? "", auth: req.headers.authorization, body });
    res.writeHead(answer.status, { "content-type": "application/json" });
    res.end(JSON.stringify(answer.status === 200 ? reply(answer.content) : { error: { message: "overloaded" } }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  s = await startService<Context>("trust", {
    TRUST_PLAN_MODEL_URL: `http://127.0.0.1:${port}/v1`,
    TRUST_PLAN_MODEL: "planner-1",
    TRUST_PLAN_MODEL_API_KEY: "model-key",
  });
  gate = makeClient(TRUST_PROTO, "gantry.trust.v1.PermitGate", `127.0.0.1:${s.port}`, { signer: s.signer() });
});
after(async () => {
  gate?.close();
  await s?.stop();
  await new Promise((r) => server?.close(r));
});

test("a model draft becomes a plan; its known action input gets a permit; verification matches that input", async () => {
  answer = { status: 200, content: JSON.stringify(draft) };
  const plan = await s.call("plan.create", { goal: "Onboard Ada as a customer" });
  const sent = requests.at(-1)!;
  assert.equal(sent.url, "/v1/chat/completions");
  assert.equal(sent.auth, "Bearer model-key");
  assert.equal(sent.body.model, "planner-1");
  assert.deepEqual(sent.body.response_format, { type: "json_object" });
  assert.match(sent.body.messages[1].content, /Onboard Ada as a customer/);

  assert.equal(plan.method, "model");
  assert.equal(plan.model, "planner-1");
  assert.deepEqual(plan.sources.templates, []);
  assert.deepEqual(
    plan.phases.map((p: any) => [p.id, p.status]),
    [
      ["p1-record", "ready"],
      ["p2-follow-up", "blocked"],
    ],
  );
  assert.ok(plan.phases[0].checks.some((c: any) => c.text === "A contact.create call made under a run succeeded"));

  const { plan: started } = await s.call("plan.execute", { planId: plan.id });
  const runId = started.phases[0].runId;
  assert.match(runId, /^run_/);
  const run = await s.call("trust.status", { runId });
  assert.equal(run.permits.length, 1);
  assert.equal(run.permits[0].ability, "contact.create");
  const inputHash = run.permits[0].inputHash;

  // The gateway's part: consume the permit, record the receipt.
  const consume = async (requestId: string, hash: string) => {
    const { permits: results } = await gate.unary("Batch", {
      permits: [
        {
          tenant: "acme",
          key_id: "key_harness",
          run_id: runId,
          ability: "contact.create",
          input_hash: hash,
          request_id: requestId,
        },
      ],
    });
    return results[0]!;
  };
  const refused = await consume("req_0other", sha256Hex(canonicalJson({ name: "Someone else" })));
  assert.equal(JSON.parse(refused.error_json).code, "forbidden");
  const permit = await consume("req_1ada", inputHash);
  assert.equal(permit.error_json, "");
  const recorded = await gate.unary("Batch", {
    receipts: [
      {
        tenant: "acme",
        request_id: "req_1ada",
        run_id: runId,
        permit_id: permit.permit_id,
        ability: "contact.create",
        input_hash: inputHash,
        result_hash: sha256Hex("{}"),
        status: 200,
        at_ms: Date.now(),
      },
    ],
  });
  assert.equal(recorded.receipts[0]?.error_code, "");
  const verified = await s.call("plan.verify", { planId: plan.id, phaseId: "p1-record", receiptIds: ["req_1ada"] });
  assert.equal(verified.passed, true, JSON.stringify(verified.checks));
  assert.equal(verified.plan.phases[1].status, "ready");
});

test("an unusable draft or a failing endpoint leaves the plan to the template", async () => {
  for (const bad of [
    { status: 200, content: "not json" },
    { status: 200, content: JSON.stringify({ phases: [{ ...draft.phases[1], dependsOn: ["p9-later"] }] }) },
    {
      status: 200,
      content: JSON.stringify({ phases: [{ ...draft.phases[0], actions: [{ ability: "plan.learn" }] }] }),
    },
    { status: 503, content: "" },
  ]) {
    answer = bad;
    const plan = await s.call("plan.create", { goal: "Onboard Grace", type: "launch" });
    assert.equal(plan.method, "deterministic", JSON.stringify(bad));
    assert.equal(plan.model, null);
    assert.deepEqual(plan.sources.templates, ["plan.launch.v1"]);
  }
});
