/**
 * @module kit/blob/s3-test-server
 * Tests only: a real S3-compatible server (versitygw, Apache-2.0, its posix backend on a temporary
 * directory; the binary .ci/run builds with `go install` and exports as S3_SERVER_BIN), started on a
 * free loopback port with one bucket. `S3_SERVER_SKIP` says why a suite is skipped when the binary
 * is not there.
 *
 * The SDK's standard credential chain reads AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, so the server's
 * test credentials are put there for this process, as a deployment's Secret would be.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { untilServing } from "../serving-child.ts";

export const S3_SERVER_SKIP = process.env.S3_SERVER_BIN
  ? false
  : "S3_SERVER_BIN is unset: the S3 blob driver is tested against versitygw, which .ci/run builds (locally: ~/.cache/gantry/bin/versitygw-v1.8.0)";

export interface S3TestServer {
  endpoint: string;
  bucket: string;
  /** BLOB_* settings (and the credentials) a service needs to use this server. */
  env: Record<string, string>;
  stop: () => Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export async function startS3Server(bucket = "gantry-test"): Promise<S3TestServer> {
  const bin = process.env.S3_SERVER_BIN;
  if (!bin) throw new Error("S3_SERVER_BIN is unset");
  const dir = mkdtempSync(join(tmpdir(), "gantry-s3-"));
  const port = await freePort();
  const access = "gantrytest";
  const secret = "gantrytest-secret-not-for-production";
  const child = spawn(bin, ["--access", access, "--secret", secret, "--port", `127.0.0.1:${port}`, "posix", dir], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  process.env.AWS_ACCESS_KEY_ID = access;
  process.env.AWS_SECRET_ACCESS_KEY = secret;
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({ region: "us-east-1", endpoint, forcePathStyle: true });
  let server: { stop: () => Promise<void> };
  try {
    server = await untilServing(child, {
      what: `versitygw on port ${port}`,
      timeoutMs: 20_000,
      ready: async () => Boolean(await client.send(new CreateBucketCommand({ Bucket: bucket }))),
    });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  } finally {
    client.destroy();
  }
  return {
    endpoint,
    bucket,
    env: {
      BLOB_STORE: "s3",
      BLOB_S3_BUCKET: bucket,
      BLOB_S3_ENDPOINT: endpoint,
      BLOB_S3_REGION: "us-east-1",
      BLOB_S3_FORCE_PATH_STYLE: "true",
      AWS_ACCESS_KEY_ID: access,
      AWS_SECRET_ACCESS_KEY: secret,
    },
    stop: async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
