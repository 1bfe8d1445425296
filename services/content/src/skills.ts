/**
 * @module content/skills
 * Agent Skills (`SKILL.md`: YAML front matter with `name` and `description`, then a Markdown body)
 * with progressive disclosure: skill.list shows only name and description, skill.load the body.
 *
 * Two sources: the built-in skills shipped in `services/content/skills/<name>/SKILL.md` (including
 * `guardrails`, the hard behavioural rules), and a tenant's own, the tenant's blobs
 * `skills/<name>/SKILL.md` in the kit's blob store (kit/src/blob; put there by an operator). Name rules (the Agent Skills format): 1–64
 * characters, lowercase letters, digits and single hyphens, not starting or ending with one, equal
 * to the directory name; description 1–1024 characters. A tenant skill that breaks them, or takes
 * a built-in name, is skipped (and logged), never served.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BlobStore, Logger } from "@gantry/kit";

export const BUILTIN_DIR = fileURLToPath(new URL("../skills/", import.meta.url));

const NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export interface Skill {
  name: string;
  description: string;
  source: "builtin" | "tenant";
  content: string;
}

/** Parses a SKILL.md; throws naming the problem. Front matter: `key: value` lines (values may be quoted). */
export function parseSkill(text: string, dirName: string, source: Skill["source"]): Skill {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (!m) throw new Error("SKILL.md must start with a --- front matter block");
  const meta: Record<string, string> = {};
  for (const line of m[1].split(/\r?\n/)) {
    if (!line.trim() || line.trimStart().startsWith("#")) continue;
    const kv = /^([A-Za-z][\w-]*):(.*)$/.exec(line);
    if (!kv) continue;
    let v = kv[2].trim();
    if ((v.startsWith('"') && v.endsWith('"')) || (v.startsWith("'") && v.endsWith("'"))) v = v.slice(1, -1);
    meta[kv[1]] = v;
  }
  const name = meta.name ?? "";
  if (!name || name.length > 64 || !NAME.test(name))
    throw new Error(`name "${name}" must be 1-64 lowercase letters, digits and single hyphens`);
  if (name !== dirName) throw new Error(`name "${name}" must equal its directory name "${dirName}"`);
  const description = meta.description ?? "";
  if (!description || description.length > 1024) throw new Error("description must be 1-1024 characters");
  return { name, description, source, content: `${m[2].trim()}\n` };
}

function readDir(dir: string, source: Skill["source"], onError: (dir: string, err: Error) => void): Skill[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  const out: Skill[] = [];
  for (const entry of entries.sort()) {
    let text: string;
    try {
      text = readFileSync(join(dir, entry, "SKILL.md"), "utf8");
    } catch {
      continue;
    }
    try {
      out.push(parseSkill(text, entry, source));
    } catch (err) {
      onError(join(dir, entry), err as Error);
    }
  }
  return out;
}

/** The built-in skills; a broken one stops the start (it shipped broken). */
export function loadBuiltins(dir = BUILTIN_DIR): Skill[] {
  return readDir(dir, "builtin", (at, err) => {
    throw new Error(`content: built-in skill ${at}: ${err.message}`);
  });
}

/** The tenant's own skills: its blobs `skills/<name>/SKILL.md`. */
async function tenantSkills(blobs: BlobStore, tenant: string, log: Logger): Promise<Skill[]> {
  const out: Skill[] = [];
  for (const { key } of await blobs.list(tenant, "skills/")) {
    const m = /^skills\/([^/]+)\/SKILL\.md$/.exec(key);
    if (!m) continue;
    const blob = await blobs.get(tenant, key);
    if (!blob) continue;
    try {
      out.push(parseSkill(blob.bytes.toString("utf8"), m[1], "tenant"));
    } catch (err) {
      log.warn({ tenant, at: key, err: (err as Error).message }, "tenant skill skipped");
    }
  }
  return out;
}

/** Built-ins plus the tenant's own, by name. */
export async function skillsFor(builtins: Skill[], blobs: BlobStore, tenant: string, log: Logger): Promise<Skill[]> {
  const taken = new Set(builtins.map((s) => s.name));
  const own = (await tenantSkills(blobs, tenant, log)).filter((s) => {
    if (!taken.has(s.name)) return true;
    log.warn({ tenant, name: s.name }, "tenant skill skipped: the name is a built-in skill's");
    return false;
  });
  return [...builtins, ...own].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
