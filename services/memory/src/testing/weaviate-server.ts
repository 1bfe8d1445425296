/**
 * @module memory/testing/weaviate-server
 * A real Weaviate for tests: `WEAVIATE_URL` (+ `WEAVIATE_GRPC_PORT`, default 50051) when set, else a
 * `weaviate-server` binary started on free loopback ports with a throwaway data directory.
 *
 * The binary is looked up as `WEAVIATE_SERVER_BIN`, then `<repo>/.gantry/bin/weaviate-server`, then
 * `weaviate-server-<version>` in the machine's tools cache (where `.ci/run` keeps the one it builds
 * with `go install github.com/weaviate/weaviate/cmd/weaviate-server@v1.35.2`, so a bench or test run
 * outside CI finds it too), then on `PATH`. When none is found the Weaviate suite is skipped with the
 * reason.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { repoRoot } from "@gantry/kit";
import { untilServing } from "@gantry/kit/serving-child.ts";
import { TOOLS_CACHE } from "@gantry/infra/runner/binaries.ts";
import { pickPort, releasePort } from "@gantry/infra/runner/ports.ts";

export interface WeaviateEndpoint {
  url: string;
  grpcPort: number;
  stop: () => Promise<void>;
}

/** The version `.ci/run` builds. */
export const WEAVIATE_VERSION = "v1.35.2";

export function findWeaviateServer(toolsCache = TOOLS_CACHE): string | undefined {
  const candidates = [
    process.env.WEAVIATE_SERVER_BIN,
    path.join(repoRoot(), ".gantry", "bin", "weaviate-server"),
    path.join(toolsCache, `weaviate-server-${WEAVIATE_VERSION}`),
    ...(process.env.PATH ?? "")
      .split(path.delimiter)
      .filter(Boolean)
      .map((d) => path.join(d, "weaviate-server")),
  ];
  for (const c of candidates) {
    if (!c) continue;
    try {
      fs.accessSync(c, fs.constants.X_OK);
      if (fs.statSync(c).isFile()) return c;
    } catch {
      /* next */
    }
  }
  return undefined;
}

/** Why the Weaviate suite cannot run here, or undefined when it can. */
export function weaviateUnavailable(): string | undefined {
  if (process.env.WEAVIATE_URL) return undefined;
  if (findWeaviateServer()) return undefined;
  return `no Weaviate: set WEAVIATE_URL, or build the server (.ci/run does, into ${TOOLS_CACHE}; or GOBIN=$PWD/.gantry/bin go install github.com/weaviate/weaviate/cmd/weaviate-server@${WEAVIATE_VERSION})`;
}

async function ready(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/v1/.well-known/ready`, { signal: AbortSignal.timeout(1_000) });
    return res.ok;
  } catch {
    return false;
  }
}

export async function startWeaviate(): Promise<WeaviateEndpoint> {
  if (process.env.WEAVIATE_URL) {
    return {
      url: process.env.WEAVIATE_URL.replace(/(?<!\/)\/+$/, ""),
      grpcPort: Number(process.env.WEAVIATE_GRPC_PORT ?? 50051),
      stop: async () => {},
    };
  }
  const bin = findWeaviateServer();
  if (!bin) throw new Error(weaviateUnavailable());
  const ports = await Promise.all(Array.from({ length: 6 }, () => pickPort(0)));
  const [http, grpc, gossip, data, raft, raftRpc] = ports;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gantry-weaviate-"));
  const child: ChildProcess = spawn(bin, ["--host", "127.0.0.1", "--port", String(http), "--scheme", "http"], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PERSISTENCE_DATA_PATH: dir,
      AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED: "true",
      DEFAULT_VECTORIZER_MODULE: "none",
      ENABLE_MODULES: "",
      AUTOSCHEMA_ENABLED: "false",
      DISABLE_TELEMETRY: "true",
      LOG_LEVEL: "warning",
      GRPC_PORT: String(grpc),
      CLUSTER_HOSTNAME: "node1",
      CLUSTER_ADVERTISE_ADDR: "127.0.0.1",
      CLUSTER_GOSSIP_BIND_PORT: String(gossip),
      CLUSTER_DATA_BIND_PORT: String(data),
      RAFT_PORT: String(raft),
      RAFT_INTERNAL_RPC_PORT: String(raftRpc),
      RAFT_BOOTSTRAP_EXPECT: "1",
      RAFT_JOIN: `node1:${raft}`,
      GOMAXPROCS: "2",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const url = `http://127.0.0.1:${http}`;
  const release = () => {
    for (const p of ports) releasePort(p);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  let server: { stop: () => Promise<void> };
  try {
    server = await untilServing(child, {
      what: "weaviate-server",
      timeoutMs: 60_000,
      intervalMs: 250,
      ready: () => ready(url),
    });
  } catch (err) {
    release();
    throw err;
  }
  return {
    url,
    grpcPort: grpc,
    stop: async () => {
      await server.stop();
      release();
    },
  };
}
