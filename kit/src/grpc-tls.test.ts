/**
 * Mutual TLS between Gantry processes (kit/grpc-tls; issue 27 item 4): with GRPC_TLS_* a server
 * takes only clients presenting a certificate of its CA, and a client believes only a server with
 * one. Certificates are made here with openssl: a CA, a server and a client certificate, and a
 * stranger's CA with a client certificate of its own.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ABILITY_PROTO } from "@gantry/proto/paths";
import { ConfigError } from "./config.ts";
import { GantryError } from "./errors.ts";
import { type grpc, lookupService, makeClient } from "./grpc.ts";
import { RpcServer } from "./grpc-server.ts";
import { type GrpcTls, loadGrpcTls } from "./grpc-tls.ts";

const AbilityService = lookupService(ABILITY_PROTO, "gantry.ability.v1.AbilityService");
const dir = mkdtempSync(join(tmpdir(), "gantry-mtls-"));
const file = (name: string) => join(dir, name);
const openssl = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });

/** A new P-256 key written to `<name>.key`, unencrypted. */
const NEW_KEY = (name: string) => [
  "-newkey",
  "ec",
  "-pkeyopt",
  "ec_paramgen_curve:P-256",
  "-nodes",
  "-keyout",
  `${name}.key`,
];

/** A CA named `ca` (files `<ca>.key`, `<ca>.pem`). */
function makeCa(ca: string): void {
  openssl("req", "-x509", ...NEW_KEY(ca), "-out", `${ca}.pem`, "-days", "1", "-subj", `/CN=${ca}`);
}

/** A certificate `name` (`<name>.key`, `<name>.pem`) signed by `ca`, valid for localhost and 127.0.0.1. */
function makeCert(name: string, ca: string): void {
  writeFileSync(file(`${name}.ext`), "subjectAltName=DNS:localhost,IP:127.0.0.1\n");
  openssl("req", ...NEW_KEY(name), "-out", `${name}.csr`, "-subj", `/CN=${name}`);
  const signedBy = ["-CA", `${ca}.pem`, "-CAkey", `${ca}.key`, "-CAcreateserial"];
  openssl(
    "x509",
    "-req",
    "-in",
    `${name}.csr`,
    ...signedBy,
    "-out",
    `${name}.pem`,
    "-days",
    "1",
    "-extfile",
    `${name}.ext`,
  );
}

const tlsOf = (name: string, ca: string): GrpcTls =>
  loadGrpcTls({
    GRPC_TLS_CERT_FILE: file(`${name}.pem`),
    GRPC_TLS_KEY_FILE: file(`${name}.key`),
    GRPC_TLS_CA_FILE: file(`${ca}.pem`),
  })!;

let server: RpcServer;
let port = 0;

before(async () => {
  makeCa("gantry-ca");
  makeCa("stranger-ca");
  makeCert("connections", "gantry-ca");
  makeCert("payments", "gantry-ca");
  makeCert("intruder", "stranger-ca");
  server = new RpcServer({ tls: tlsOf("connections", "gantry-ca") });
  server.addService(AbilityService.service, {
    Execute: (_call: unknown, cb: grpc.sendUnaryData<unknown>) => cb(null, { result_json: '"over mTLS"' }),
  });
  port = await server.listen("127.0.0.1", 0);
});
after(async () => {
  await server?.shutdown(100);
  rmSync(dir, { recursive: true, force: true });
});

async function execute(addr: string, tls?: GrpcTls): Promise<string> {
  const client = makeClient(ABILITY_PROTO, "gantry.ability.v1.AbilityService", addr, tls ? { tls } : {});
  try {
    const res = await client.unary("Execute", { ability: "x", input_json: "{}" }, { deadlineMs: 3_000 });
    return res.result_json;
  } finally {
    client.close();
  }
}

const refused = (err: unknown) => {
  assert.ok(err instanceof GantryError, String(err));
  assert.ok(["unavailable", "timeout"].includes(err.code), `${err.code}: ${err.message}`);
  return true;
};

describe("mutual TLS", () => {
  test("a client with a certificate of the CA is served", async () => {
    assert.equal(await execute(`127.0.0.1:${port}`, tlsOf("payments", "gantry-ca")), '"over mTLS"');
    // By name too: the certificate is checked against the name dialled.
    assert.equal(await execute(`localhost:${port}`, tlsOf("payments", "gantry-ca")), '"over mTLS"');
  });

  test("a client without a certificate is refused", async () => {
    const { ca } = tlsOf("payments", "gantry-ca");
    await assert.rejects(execute(`127.0.0.1:${port}`, { ca } as GrpcTls), refused);
  });

  test("a client with another CA's certificate is refused", async () => {
    const intruder = { ...tlsOf("intruder", "stranger-ca"), ca: tlsOf("payments", "gantry-ca").ca };
    await assert.rejects(execute(`127.0.0.1:${port}`, intruder), refused);
  });

  test("a plaintext client is refused", async () => {
    await assert.rejects(execute(`127.0.0.1:${port}`), refused);
  });

  test("a client does not believe a server whose certificate its CA did not sign", async () => {
    await assert.rejects(execute(`127.0.0.1:${port}`, tlsOf("intruder", "stranger-ca")), refused);
  });

  test("all three variables or none", () => {
    assert.equal(loadGrpcTls({}), undefined);
    assert.throws(
      () => loadGrpcTls({ GRPC_TLS_CERT_FILE: file("payments.pem") }),
      (err: unknown) => err instanceof ConfigError && /GRPC_TLS_KEY_FILE, GRPC_TLS_CA_FILE/.test(err.message),
    );
    assert.throws(
      () =>
        loadGrpcTls({
          GRPC_TLS_CERT_FILE: file("missing.pem"),
          GRPC_TLS_KEY_FILE: file("payments.key"),
          GRPC_TLS_CA_FILE: file("gantry-ca.pem"),
        }),
      /GRPC_TLS_CERT_FILE: cannot read/,
    );
  });
});
