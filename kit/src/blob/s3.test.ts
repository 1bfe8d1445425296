/**
 * The S3 blob driver against a real S3-compatible server (versitygw on a temporary directory, built
 * by .ci/run): the same contract as the Postgres driver, plus what only S3 has (the service's
 * folder under the configured prefix, a server that stops answering).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { GantryError } from "../errors.ts";
import { asSystem, withTenant } from "../tenancy.ts";
import { blobContract } from "./contract.ts";
import { S3_SERVER_SKIP, type S3TestServer, startS3Server } from "./s3-test-server.ts";
import { type BlobStore, createBlobStore } from "./store.ts";

describe("s3 blob driver", { skip: S3_SERVER_SKIP }, () => {
  let server: S3TestServer;
  let offset = 0;
  const now = () => Date.now() + offset;
  let store: BlobStore;
  const storeFor = (schema: string, prefix = "tests/") =>
    createBlobStore({
      config: {
        BLOB_STORE: "s3",
        BLOB_S3_BUCKET: server.bucket,
        BLOB_S3_PREFIX: prefix,
        BLOB_S3_ENDPOINT: server.endpoint,
        BLOB_S3_REGION: "us-east-1",
        BLOB_S3_FORCE_PATH_STYLE: true,
      },
      schema,
      now,
    });

  before(async () => {
    server = await startS3Server();
    store = await storeFor("content");
  });
  after(async () => server?.stop());

  blobContract("s3", { store: () => store, advance: (ms) => (offset += ms), now });

  test("s3: each service has its own folder under the prefix", async () => {
    const web = await storeFor("web");
    await withTenant("acme", () => store.put("acme", "shared/name.txt", Buffer.from("content's")));
    assert.equal(await withTenant("acme", () => web.get("acme", "shared/name.txt")), null);
    await withTenant("acme", () => web.put("acme", "shared/name.txt", Buffer.from("web's")));
    assert.equal((await withTenant("acme", () => store.get("acme", "shared/name.txt")))?.bytes.toString(), "content's");
    await asSystem(() => Promise.all([store.delete("acme", "shared/name.txt"), web.delete("acme", "shared/name.txt")]));
  });

  test("s3: a missing bucket is a 503 naming the S3 error, never a silent null", async () => {
    const wrong = await createBlobStore({
      config: {
        BLOB_STORE: "s3",
        BLOB_S3_BUCKET: "no-such-bucket",
        BLOB_S3_PREFIX: "",
        BLOB_S3_ENDPOINT: server.endpoint,
        BLOB_S3_REGION: "us-east-1",
        BLOB_S3_FORCE_PATH_STYLE: true,
      },
      schema: "content",
      now,
    });
    await assert.rejects(
      () => withTenant("acme", () => wrong.put("acme", "a.txt", Buffer.from("x"))),
      (err: unknown) => err instanceof GantryError && err.code === "unavailable" && /NoSuchBucket/.test(err.message),
    );
  });
});
