/**
 * @module infra/scripts/generate
 * `npm run generate` (and the root `postinstall`): writes the typed client's view of the catalogue
 * (`client/src/generated/`, by client/scripts/generate.ts), the gRPC message types and every
 * service's ability index (`kit/src/generated/grpc.ts`, `services/<name>/src/generated/abilities.ts`,
 * by kit/scripts/generate.ts), then runs `prisma generate` for every service that
 * has a `services/<name>/prisma/schema.prisma`, in that service's directory, with the one shared
 * Prisma config (`kit/src/data/prisma.config.ts`, which reads the service from the directory). Silent on success as a postinstall step (one summary line when run
 * as `npm run generate`); prints Prisma's output when it fails.
 *
 * Prisma's CLI wants a schema-engine binary it cannot download on machines without internet
 * access; `generate` never runs it, so unless `PRISMA_SCHEMA_ENGINE_BINARY` is already set we
 * point it at a stub that explains itself if something does call it.
 *
 * Usage: `node infra/scripts/generate.ts [service... | client]`
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const started = Date.now();

const only = process.argv.slice(2);

if (only.length === 0 || only.includes("client")) {
  const { write } = await import("../../client/scripts/generate.ts");
  write();
}
// The gRPC message types and each service's ability index (kit/scripts/generate.ts): cheap, and what
// the kit's client types and service bootstrap read, so every run writes them.
{
  const { write } = await import("../../kit/scripts/generate.ts");
  write();
}

const servicesDir = path.join(ROOT, "services");
const targets = (fs.existsSync(servicesDir) ? fs.readdirSync(servicesDir) : [])
  .filter((name) => fs.existsSync(path.join(servicesDir, name, "prisma", "schema.prisma")))
  .filter((name) => only.length === 0 || only.includes(name))
  .sort();

if (targets.length === 0) process.exit(0);

function prismaCli(): string {
  const candidates = [path.join(ROOT, "node_modules", "prisma", "build", "index.js")];
  for (const c of candidates) if (fs.existsSync(c)) return c;
  console.error("generate: the prisma CLI is not installed (node_modules/prisma); run `npm ci` first");
  process.exit(1);
}

/** A schema-engine stand-in: generate never calls it; anything else gets a clear message. */
function schemaEngineStub(): string {
  const dir = path.join(os.tmpdir(), "gantry-prisma");
  const file = path.join(dir, "schema-engine-stub");
  const body =
    "#!/bin/sh\n" +
    "echo 'Prisma schema engine is not available on this machine (Gantry applies migrations with its own runner, kit/src/migrate.ts).' >&2\n" +
    "exit 1\n";
  try {
    if (fs.readFileSync(file, "utf8") === body) return file;
  } catch {
    /* not there yet */
  }
  fs.mkdirSync(dir, { recursive: true });
  const tmp = `${file}.${process.pid}`;
  fs.writeFileSync(tmp, body, { mode: 0o755 });
  fs.renameSync(tmp, file);
  return file;
}

const cli = prismaCli();
const PRISMA_CONFIG = path.join(ROOT, "kit", "src", "data", "prisma.config.ts");
const env: NodeJS.ProcessEnv = {
  ...process.env,
  PRISMA_HIDE_UPDATE_MESSAGE: "1",
  CHECKPOINT_DISABLE: "1",
  PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY || schemaEngineStub(),
};

function generate(service: string): Promise<{ service: string; code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, "generate", "--config", PRISMA_CONFIG], {
      cwd: path.join(servicesDir, service),
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("error", (err) => resolve({ service, code: 1, output: output + String(err) }));
    child.on("close", (code) => resolve({ service, code: code ?? 1, output }));
  });
}

// Two at a time: each CLI run is mostly CPU, and machines here have two cores.
const results: Array<{ service: string; code: number; output: string }> = [];
const queue = [...targets];
await Promise.all(
  Array.from({ length: Math.min(2, queue.length) }, async () => {
    for (let s = queue.shift(); s; s = queue.shift()) results.push(await generate(s));
  }),
);

const failed = results.filter((r) => r.code !== 0);
for (const r of failed) {
  console.error(`generate: prisma generate failed for services/${r.service} (exit ${r.code}):\n${r.output.trim()}\n`);
}
if (failed.length) process.exit(1);
// Silent as a postinstall step; one line when asked for directly (`npm run generate`).
if (process.env.npm_lifecycle_event !== "postinstall") {
  console.log(`generate: Prisma clients for ${targets.join(", ")} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}
