/**
 * @module gateway/version
 * The interface version `0.1.0+<build>` (spec §9.3). The build is GANTRY_BUILD when set (images set
 * it at build time), else the git commit of the checkout, else `dev`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { VERSION, repoRoot } from "@gantry/kit";

function gitCommit(): string | undefined {
  try {
    const gitDir = join(repoRoot(), ".git");
    const head = readFileSync(join(gitDir, "HEAD"), "utf8").trim();
    const sha = head.startsWith("ref: ") ? readFileSync(join(gitDir, head.slice(5)), "utf8").trim() : head;
    return /^[0-9a-f]{40}$/.test(sha) ? sha.slice(0, 12) : undefined;
  } catch {
    return undefined;
  }
}

export function version(build: string | undefined): string {
  return `${VERSION}+${build ?? gitCommit() ?? "dev"}`;
}
