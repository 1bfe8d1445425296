/**
 * @module web/test/files
 * Fetching a screenshot link the way the gateway does: `GET /v1/files/web/…` forwarded over gRPC to
 * the service's HttpIngress (kit/src/ingress.ts).
 */
import { createHash } from "node:crypto";
import { ingressClient } from "@gantry/kit";
import type { ServiceHarness } from "@gantry/infra/testing/service.ts";

export async function getFile(
  s: Pick<ServiceHarness<unknown>, "port" | "signer">,
  link: string,
): Promise<{ status: number; type: string; body: Buffer }> {
  const u = new URL(link);
  const prefix = "/v1/files/web";
  if (!u.pathname.startsWith(prefix)) throw new Error(`not a web files link: ${link}`);
  const client = ingressClient(`127.0.0.1:${s.port}`, s.signer());
  try {
    const res = await client.handle(
      {
        route: "files",
        method: "GET",
        path: u.pathname.slice(prefix.length),
        query: u.search.slice(1),
        headers: {},
        body: Buffer.alloc(0),
        request_id: "req_files_test",
        remote_addr: "127.0.0.1",
      },
      5000,
    );
    return { status: res.status, type: res.headers["content-type"] ?? "", body: res.body };
  } finally {
    client.close();
  }
}

export const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");
