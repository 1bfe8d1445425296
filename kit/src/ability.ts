/**
 * @module kit/ability
 * One handler shape for every ability of every service: `(input, call, ctx) → result`, where the
 * input type is derived from the catalogue schema (`InputOf<id>`) and `ctx` is the service's
 * context (what its `init` returned). Each ability lives in `services/<service>/src/abilities/<id>.ts`
 * and default-exports `ability(id, run)`; the kit finds it there by id, so there is no registry to
 * edit (what adding an ability does touch: docs/development.md, *Worked example*).
 *
 * @example
 * // services/workspace/src/context.ts
 * export const ability = abilityOf<Context>();
 * // services/workspace/src/abilities/contact.get.ts
 * export default ability("contact.get", async (input, call, ctx) => readContact(ctx, input.id));
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { AbilityId, InputOf, OutputOf } from "@gantry/proto/catalogue";
import type { CallContext } from "./wire.ts";

/**
 * The handler of one ability. Input arrives validated against its schema, with defaults applied; the
 * result is typed from the catalogue's `output` schema, so a missing, misnamed or mistyped result
 * field is a compile error in the handler that makes it (kit/src/ability-types.test.ts shows it).
 */
export type Run<Id extends AbilityId, Ctx> = (input: InputOf<Id>, call: CallContext, ctx: Ctx) => Promise<OutputOf<Id>>;

export interface Ability<Id extends AbilityId = AbilityId, Ctx = unknown> {
  readonly id: Id;
  readonly run: Run<Id, Ctx>;
}

/** The `ability(id, run)` declarer of a service whose context is `Ctx`. */
export function abilityOf<Ctx>() {
  return function ability<const Id extends AbilityId>(id: Id, run: Run<NoInfer<Id>, Ctx>): Ability<Id, Ctx> {
    return Object.freeze({ id, run });
  };
}

/**
 * A stored string narrowed to one of the catalogue's values (`TASK_STATUSES`, …): a column is a
 * plain `text` to Postgres and Prisma, while the result schema names the values it may hold. A value
 * outside them is a bug in what was written, so it fails the call instead of leaving the contract.
 *
 * @example
 * status: oneOf(TASK_STATUSES, row.status, "task status"),
 */
export function oneOf<const V extends readonly string[]>(values: V, value: string, what: string): V[number] {
  if (isOneOf(values, value)) return value;
  throw new Error(`${what} ${JSON.stringify(value)} is not one of ${values.join(", ")}`);
}

function isOneOf<V extends readonly string[]>(values: V, value: string): value is V[number] {
  return values.includes(value);
}

/** The ability id a handler file is named after (`<id>.ts`; tests beside it are not handlers). */
function handlerId(file: string): string | undefined {
  if (!file.endsWith(".ts") || file.endsWith(".test.ts") || file.length <= 3) return undefined;
  return file.slice(0, -3);
}

/**
 * What `src/generated/abilities.ts` exports (kit/scripts/generate.ts): every handler of the
 * service by id. `satisfies AbilityIndex` there makes an entry whose handler declares another id a
 * compile error.
 */
export type AbilityIndex = { readonly [Id in AbilityId]?: Ability<Id, never> };

/**
 * The service's handlers, from its generated ability index (`<src>/generated/abilities.ts`, which
 * imports every `abilities/<id>.ts` statically, so "go to definition" leads from it to each
 * handler). Refuses an index that lags the handler files (a file added since `npm run generate`
 * would otherwise answer 501 silently), an id the service does not own, and a handler that declares
 * another id.
 */
export async function loadAbilities<Ctx>(
  service: string,
  src: string,
  owned: ReadonlySet<string>,
): Promise<Map<string, Ability<AbilityId, Ctx>>> {
  const found = new Map<string, Ability<AbilityId, Ctx>>();
  const dir = join(src, "abilities");
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => handlerId(f) !== undefined) : [];
  const indexFile = join(src, "generated", "abilities.ts");
  if (!existsSync(indexFile)) {
    if (files.length === 0) return found;
    throw new Error(`${service}: src/generated/abilities.ts is missing; run \`npm run generate\``);
  }
  const index = ((await import(pathToFileURL(indexFile).href)) as { default: Record<string, Ability<AbilityId, Ctx>> })
    .default;
  for (const file of files) {
    const id = handlerId(file)!;
    if (!(id in index))
      throw new Error(`${service}: abilities/${file} is not in src/generated/abilities.ts; run \`npm run generate\``);
  }
  for (const [id, def] of Object.entries(index)) {
    if (!owned.has(id))
      throw new Error(
        `${service}: abilities/${id}.ts is named after ${id}, which the catalogue does not give to ${service}`,
      );
    if (!def || typeof def.run !== "function")
      throw new Error(`${service}: abilities/${id}.ts must \`export default ability("${id}", …)\``);
    if (def.id !== id)
      throw new Error(
        `${service}: abilities/${id}.ts declares ${def.id}; the file must be named after the ability it handles`,
      );
    found.set(id, def);
  }
  return found;
}
