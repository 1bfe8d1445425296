/**
 * @module infra/testing/go-tool
 * A small Go program of this repository (its own go.mod, dependencies from the Go module proxy),
 * built once with `go build` into the machine's tools cache outside the clone, beside the Go tools
 * .ci/run builds: `$GANTRY_TOOLS_CACHE`, else `${XDG_CACHE_HOME:-$HOME/.cache}/gantry/bin`. The
 * binary's name carries a hash of the program's sources (go.mod, go.sum, *.go) and of the Go
 * version, so an edited program is built again and an unchanged one never is.
 *
 * Tests skip with {@link GO_SKIP} when there is no Go toolchain; a build that fails throws with the
 * build's output (a broken program must fail the test, not skip it).
 *
 * @example
 * test("…", { skip: GO_SKIP }, () => { const bin = buildGoTool("bench/tlog-verify", "tlog-verify"); … });
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT, TOOLS_CACHE, which } from "../runner/binaries.ts";

/** The go command: on PATH, else where the official archive installs it (as .ci/run looks). */
export const GO = which("go") ?? (existsSync("/usr/local/go/bin/go") ? "/usr/local/go/bin/go" : undefined);

/** Why a test of a Go program cannot run here, or false. */
export const GO_SKIP = GO
  ? false
  : "no Go toolchain (go on PATH or /usr/local/go/bin/go): the Go program cannot be built";

/**
 * The path of the built program in `dir` (relative to the repository root), building it first when
 * the cache has no binary for these sources and this Go version.
 */
export function buildGoTool(dir: string, name: string): string {
  if (!GO) throw new Error(GO_SKIP || "no Go toolchain");
  const source = join(REPO_ROOT, dir);
  const version = spawnSync(GO, ["env", "GOVERSION"], { encoding: "utf8" }).stdout.trim();
  const hash = createHash("sha256").update(version);
  for (const file of readdirSync(source).sort())
    if (file === "go.mod" || file === "go.sum" || file.endsWith(".go"))
      hash.update(`${file}\0`).update(readFileSync(join(source, file)));
  const bin = join(TOOLS_CACHE, `${name}-${hash.digest("hex").slice(0, 16)}`);
  if (existsSync(bin)) return bin;
  mkdirSync(TOOLS_CACHE, { recursive: true });
  const tmp = mkdtempSync(join(TOOLS_CACHE, ".build-"));
  try {
    const built = spawnSync(GO, ["build", "-trimpath", "-o", join(tmp, name), "."], {
      cwd: source,
      encoding: "utf8",
      env: { ...process.env, GOFLAGS: [process.env.GOFLAGS, "-buildvcs=false"].filter(Boolean).join(" ") },
      timeout: 600_000,
    });
    if (built.status !== 0)
      throw new Error(`go build in ${dir} failed (exit ${built.status}):\n${`${built.stdout}${built.stderr}`.trim()}`);
    renameSync(join(tmp, name), bin);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return bin;
}
