/**
 * The kit serves a service's handlers from its generated ability index (issue 31 item 2:
 * `src/generated/abilities.ts`, by kit/scripts/generate.ts), not by reading `src/abilities/` at
 * start. These check what `loadAbilities` does with an index: it serves what the index lists, and
 * refuses to start when the index lags the handler files, names an id the service does not own, or
 * maps an id to a handler that declares another (each would otherwise answer 501 or run the wrong
 * handler). The files are written to a temporary directory under `.gantry/`.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadAbilities } from "./ability.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));

const handler = (id: string) =>
  `export default { id: ${JSON.stringify(id)}, run: async () => ({ ran: ${JSON.stringify(id)} }) };\n`;
const index = (entries: Record<string, string>) =>
  `${Object.values(entries)
    .map((file, i) => `import h${i} from "../abilities/${file}.ts";\n`)
    .join("")}export default { ${Object.keys(entries)
    .map((id, i) => `${JSON.stringify(id)}: h${i}`)
    .join(", ")} };\n`;

/** A service `src/` with these handler files and this index (none: no index). */
function serviceSrc(handlers: Record<string, string>, entries?: Record<string, string>): string {
  mkdirSync(join(root, ".gantry"), { recursive: true });
  const src = mkdtempSync(join(root, ".gantry", "ability-index-"));
  mkdirSync(join(src, "abilities"));
  for (const [file, id] of Object.entries(handlers)) writeFileSync(join(src, "abilities", `${file}.ts`), handler(id));
  writeFileSync(join(src, "abilities", "event.emit.test.ts"), "throw new Error('a test is no handler');\n");
  if (entries) {
    mkdirSync(join(src, "generated"));
    writeFileSync(join(src, "generated", "abilities.ts"), index(entries));
  }
  return src;
}

const OWNED = new Set(["event.emit", "event.list"]);

test("the handlers the index lists are served by id", async () => {
  const src = serviceSrc({ "event.emit": "event.emit" }, { "event.emit": "event.emit" });
  try {
    const found = await loadAbilities("workspace", src, OWNED);
    assert.deepEqual([...found.keys()], ["event.emit"]);
    assert.deepEqual(await found.get("event.emit")!.run({} as never, {} as never, undefined), { ran: "event.emit" });
  } finally {
    rmSync(src, { recursive: true, force: true });
  }
});

test("an index that lags the handler files, or is missing, stops the start naming npm run generate", async () => {
  const lagging = serviceSrc(
    { "event.emit": "event.emit", "event.list": "event.list" },
    { "event.emit": "event.emit" },
  );
  const missing = serviceSrc({ "event.emit": "event.emit" });
  try {
    await assert.rejects(loadAbilities("workspace", lagging, OWNED), /event\.list\.ts is not in .*npm run generate/);
    await assert.rejects(loadAbilities("workspace", missing, OWNED), /abilities\.ts is missing.*npm run generate/);
  } finally {
    rmSync(lagging, { recursive: true, force: true });
    rmSync(missing, { recursive: true, force: true });
  }
});

test("an id the service does not own, or a handler that declares another id, stops the start", async () => {
  const foreign = serviceSrc({ "contact.get": "contact.get" }, { "contact.get": "contact.get" });
  const swapped = serviceSrc({ "event.emit": "event.list" }, { "event.emit": "event.emit" });
  try {
    await assert.rejects(loadAbilities("workspace", foreign, OWNED), /catalogue does not give to workspace/);
    await assert.rejects(loadAbilities("workspace", swapped, OWNED), /declares event\.list/);
  } finally {
    rmSync(foreign, { recursive: true, force: true });
    rmSync(swapped, { recursive: true, force: true });
  }
});
