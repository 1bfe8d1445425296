/**
 * gRPC calls are typed from the .proto files (issue 31 item 1): kit/scripts/generate.ts writes the
 * messages and each service's method table (kit/src/generated/grpc.ts), so a method the service does
 * not have, a request field its message does not have, a field of the wrong type, a response field
 * that does not exist, or a .proto file that does not declare the service is a compile error at the
 * call, not a surprise at run time. Tiny callers are type-checked on their own
 * (infra/testing/typecheck-fixtures). It also checks that what is
 * generated matches the sources, as a fresh `npm run generate` would write it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { typecheckFixtures } from "@gantry/infra/testing/typecheck-fixtures.ts";
import { write } from "../scripts/generate.ts";

const caller = (call: string) => `import { makeClient } from "../../kit/src/grpc.ts";
import { KEYS_PROTO, TRUST_PROTO } from "../../proto/paths.ts";
const gate = makeClient(TRUST_PROTO, "gantry.trust.v1.PermitGate", "127.0.0.1:1");
const keys = makeClient(KEYS_PROTO, "gantry.keys.v1.KeyResolver", "127.0.0.1:1");
export const run = async () => { void gate; void keys; ${call} };
`;

const FIXTURES: Record<string, string> = {
  "correct.ts": caller(
    `const p = await gate.unary("Batch", { permits: [{ tenant: "acme", key_id: "key_1", run_id: "run_1", input_hash: "ab" }] });
     const id: string | undefined = p.permits[0]?.permit_id;
     const k = await keys.unary("ResolveKey", { secret_sha256: "ab" });
     const limit: number | undefined = k.rate_limit?.window_seconds;
     void id; void limit;`,
  ),
  "method.ts": caller(`await gate.unary("ConsumePermit", { tenant: "acme" });`),
  "field.ts": caller(`await gate.unary("Batch", { permits: [{ tenant: "acme", keyId: "key_1" }] });`),
  "fieldtype.ts": caller(`await keys.unary("ResolveKey", { secret_sha256: "ab", legacy_only: "yes" });`),
  "response.ts": caller(`const p = await gate.unary("Batch", {}); void p.permits[0]?.permitId;`),
  "file.ts": `import { makeClient } from "../../kit/src/grpc.ts";
import { KEYS_PROTO } from "../../proto/paths.ts";
export const gate = makeClient(KEYS_PROTO, "gantry.trust.v1.PermitGate", "127.0.0.1:1");
`,
};

test("a gRPC call's method, request fields and response fields are checked at compile time", () => {
  const { out, status, errorsOf } = typecheckFixtures("grpc-types", FIXTURES);
  assert.equal(errorsOf("correct.ts"), "", `calls as the .proto declares them must compile:\n${out}`);
  assert.match(errorsOf("method.ts"), /"ConsumePermit"/, `a method the service lacks must be refused:\n${out}`);
  assert.match(errorsOf("field.ts"), /keyId/, `a request field the message lacks must be named:\n${out}`);
  assert.match(errorsOf("fieldtype.ts"), /boolean/, `a request field of the wrong type must be refused:\n${out}`);
  assert.match(errorsOf("response.ts"), /permitId/, `a response field the message lacks must be named:\n${out}`);
  assert.match(
    errorsOf("file.ts"),
    /trust\.proto/,
    `a .proto that does not declare the service must be refused:\n${out}`,
  );
  assert.notEqual(status, 0);
});

test("the generated gRPC types and ability indexes match the .proto files, the catalogue and the handler files", () => {
  assert.deepEqual(write(true), [], "run `npm run generate`");
});
