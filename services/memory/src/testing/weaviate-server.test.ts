import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { repoRoot } from "@gantry/kit";
import { findWeaviateServer, WEAVIATE_VERSION } from "./weaviate-server.ts";

const inRepo = path.join(repoRoot(), ".gantry", "bin", "weaviate-server");

// A bench or test run outside CI (no WEAVIATE_SERVER_BIN) must find the server .ci/run keeps in the
// machine's tools cache, or the Weaviate suite and the scale curve are skipped.
test("weaviate-server is found in the tools cache under its version's name when nothing earlier names one", {
  skip: fs.existsSync(inRepo) ? `${inRepo} exists and is looked up first` : false,
}, (t) => {
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), "gantry-tools-"));
  t.after(() => fs.rmSync(cache, { recursive: true, force: true }));
  const saved = { bin: process.env.WEAVIATE_SERVER_BIN, PATH: process.env.PATH };
  t.after(() => {
    if (saved.bin === undefined) delete process.env.WEAVIATE_SERVER_BIN;
    else process.env.WEAVIATE_SERVER_BIN = saved.bin;
    process.env.PATH = saved.PATH;
  });
  delete process.env.WEAVIATE_SERVER_BIN;
  process.env.PATH = "";

  assert.equal(findWeaviateServer(cache), undefined, "an empty cache holds no server");
  fs.writeFileSync(path.join(cache, "weaviate-server-v0.0.1"), "#!/bin/sh\n", { mode: 0o755 });
  assert.equal(findWeaviateServer(cache), undefined, "another version's binary is not used");
  const bin = path.join(cache, `weaviate-server-${WEAVIATE_VERSION}`);
  fs.writeFileSync(bin, "#!/bin/sh\n", { mode: 0o644 });
  assert.equal(findWeaviateServer(cache), undefined, "a file that is not executable is not used");
  fs.chmodSync(bin, 0o755);
  assert.equal(findWeaviateServer(cache), bin);
});
