/**
 * Public ingress (gateway/src/routes/ingress.ts → kit/src/ingress.ts): webhooks and signed file
 * links reach the owning service over gRPC with the body byte for byte (so a provider's signature
 * still verifies), without the caller's credentials, and the service's answer comes back with only
 * safe headers. A service that takes none, or a name that is no service, is 404; a body over the
 * limit is 413 before the service sees anything.
 *
 * The "payments" service here is a real gRPC server in this test process registering the kit's
 * `ingressService` (the same call a service makes in `grpcServices`); the gateway and keys run as
 * usual.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import request from "supertest";
import {
  createLogger,
  GantryError,
  grpc,
  type IngressRequest,
  type IngressResponse,
  ingressService,
} from "@gantry/kit";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";
import { INGRESS_BODY_LIMIT_BYTES } from "../src/routes/ingress.ts";

let t: TestStack;
let server: grpc.Server;
const seen: IngressRequest[] = [];

before(async () => {
  server = new grpc.Server();
  const { service, impl } = ingressService(
    createLogger("payments", "silent"),
    async (req): Promise<IngressResponse> => {
      seen.push(req);
      if (req.route === "webhooks" && req.path === "/provider_a") {
        if (req.headers["stripe-signature"] !== "t=1,v1=abc")
          throw new GantryError("unauthorized", "The Stripe-Signature header does not match the body.");
        return {
          status: 200,
          headers: { "content-type": "application/json", "set-cookie": "a=b", "x-received": String(req.body.length) },
          body: JSON.stringify({ received: true }),
        };
      }
      if (req.route === "files" && req.path === "/art_1/report.pdf")
        return {
          status: 200,
          headers: {
            "content-type": "application/pdf",
            "content-disposition": 'attachment; filename="report.pdf"',
            "content-security-policy": "default-src 'none'",
            "access-control-allow-origin": "*",
          },
          body: Buffer.from("%PDF-1.7\n\x00\xff binary"),
        };
      throw new GantryError("not_found", `No ${req.route} endpoint ${req.path}.`);
    },
  );
  server.addService(service, impl);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  t = await startTestStack({ services: ["keys"], env: { PAYMENTS_ADDR: `127.0.0.1:${port}` } });
});
after(async () => {
  await t?.stop();
  server?.forceShutdown();
});

describe("ingress: /v1/webhooks/{service}/… and /v1/files/{service}/…", () => {
  test("a webhook reaches the service byte for byte, without the caller's credentials; safe headers come back", async () => {
    // Not valid UTF-8 and with CRLFs: a re-encoded body would break a provider's signature.
    const body = Buffer.from('{"id":"evt_1","type":"payout.paid"}\r\n\xc3\x28', "latin1");
    // fetch, not supertest: supertest would re-serialise a Buffer sent as application/json.
    const res = await fetch(`${t.url}/v1/webhooks/payments/provider_a?attempt=2`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "stripe-signature": "t=1,v1=abc",
        authorization: `Bearer ${t.adminKey}`,
        cookie: "session=1",
      },
      body,
    });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { received: true });
    assert.equal(res.headers.get("x-received"), String(body.length));
    assert.equal(res.headers.get("set-cookie"), null, "a service cannot set cookies on the API's origin");
    const got = seen.at(-1)!;
    assert.equal(got.route, "webhooks");
    assert.equal(got.method, "POST");
    assert.equal(got.path, "/provider_a");
    assert.equal(got.query, "attempt=2");
    assert.ok(Buffer.from(got.body).equals(body), "the body arrives exactly as sent");
    assert.equal(got.headers.authorization, undefined);
    assert.equal(got.headers.cookie, undefined);
    assert.match(got.request_id, /^req_/);
    assert.equal(res.headers.get("x-request-id"), got.request_id);
  });

  test("the service's refusal is the API's error envelope", async () => {
    const res = await request(t.url)
      .post("/v1/webhooks/payments/provider_a")
      .set("stripe-signature", "t=1,v1=forged")
      .send("{}")
      .expect(401);
    assert.equal(res.body.code, "unauthorized");
    assert.match(res.body.error, /Stripe-Signature/);
  });

  test("a signed file link returns the bytes and its content type; HEAD returns no body", async () => {
    const res = await request(t.url)
      .get("/v1/files/payments/art_1/report.pdf?expires=1&sig=x")
      .buffer(true)
      .parse((r, cb) => {
        const chunks: Buffer[] = [];
        r.on("data", (c: Buffer) => chunks.push(c));
        r.on("end", () => cb(null, Buffer.concat(chunks)));
      })
      .expect(200);
    assert.equal(res.headers["content-type"], "application/pdf");
    assert.match(res.headers["content-disposition"], /report\.pdf/);
    assert.equal(res.headers["content-security-policy"], "default-src 'none'");
    assert.equal(res.headers["access-control-allow-origin"], undefined, "a service cannot open the API's origin");
    assert.ok((res.body as Buffer).equals(Buffer.from("%PDF-1.7\n\x00\xff binary")));
    assert.equal(seen.at(-1)!.query, "expires=1&sig=x");
    const head = await request(t.url).head("/v1/files/payments/art_1/report.pdf").expect(200);
    assert.equal(head.text ?? "", "");
  });

  test("404 for a service that takes no ingress, a name that is no service, and an unknown path", async () => {
    const keys = await request(t.url).post("/v1/webhooks/keys/anything").send("{}").expect(404);
    assert.match(keys.body.error, /keys service takes no webhooks/);
    const nobody = await request(t.url).post("/v1/webhooks/billing/x").send("{}").expect(404);
    assert.match(nobody.body.error, /No service 'billing'/);
    await request(t.url).get("/v1/files/payments/art_2/missing.pdf").expect(404);
    // Files are fetched, never posted to.
    await request(t.url).post("/v1/files/payments/art_1/report.pdf").send("{}").expect(404);
  });

  test("a body over the limit is 413 and never reaches the service", async () => {
    const before = seen.length;
    const res = await fetch(`${t.url}/v1/webhooks/payments/provider_a`, {
      method: "POST",
      headers: { "stripe-signature": "t=1,v1=abc" },
      body: Buffer.alloc(INGRESS_BODY_LIMIT_BYTES + 1, 0x61),
    });
    assert.equal(res.status, 413);
    const body = (await res.json()) as { code: string };
    assert.equal(body.code, "payload_too_large");
    assert.equal(seen.length, before);
  });
});
