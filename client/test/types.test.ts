/**
 * The client's types against the catalogue's own (checked by `tsc -p tsconfig.json`, which `npm test`
 * runs), and the generated files against the catalogue (checked at run time).
 *
 * - every handler-view input (`InputOf<id>`, defaults filled) is a valid caller input of the client;
 * - the client's result types and `OutputOf<id>` accept each other.
 * Where the catalogue's type is `unknown` (a hand-written schema literal without `typed`), the client's
 * type, read from the JSON Schema itself, is more precise; `Loose` lets those places pass.
 * - the ergonomic methods have the right names and types (`@ts-expect-error` marks what must not compile).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { AbilityId as CatalogueId, InputOf, OutputOf } from "@gantry/proto/catalogue";
import type { DetailCode as KitDetailCode, ErrorCode as KitErrorCode } from "@gantry/kit/errors.ts";
import { write } from "../scripts/generate.ts";
import type {
  AbilityId,
  AbilityInput,
  AbilityOutput,
  Area,
  ClientCore,
  ContactCreateInput,
  DetailCode,
  ErrorCode,
  GantryClient,
} from "../src/index.ts";

// After a catalogue change these fail until `npm run generate` rewrites client/src/generated/.

type Equal<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Expect<T extends true> = T;

// The error vocabularies are the kit's.
export type ErrorCodesMatch = Expect<Equal<ErrorCode, KitErrorCode>>;
export type DetailCodesMatch = Expect<Equal<DetailCode, KitDetailCode>>;

// Same ids on both sides.
export type IdsMatch = Expect<Equal<AbilityId, CatalogueId>>;

/** `unknown` (anywhere inside) becomes `any`: the catalogue states no type there, so any is consistent. */
type Loose<T> = unknown extends T ? any : T extends object ? { [K in keyof T]: Loose<T[K]> } : T;

// Ids whose handler-view input is not a caller input of the client (must be none).
type InputMismatch = {
  [Id in AbilityId]: [Loose<InputOf<Id>>] extends [AbilityInput<Id>] ? never : Id;
}[Exclude<AbilityId, MorePreciseInputs>];

/**
 * Inputs whose schema says more than `InputOf` does, so a handler-view input need not be a valid
 * caller input: qa.checklist.create needs `scope` or `items` (an `anyOf` of required fields).
 */
type MorePreciseInputs = "qa.checklist.create";
export type InputsMatch = Expect<Equal<InputMismatch, never>>;

// Ids whose result type differs from the catalogue's (must be none).
type OutputMismatch = {
  [Id in AbilityId]: Equal<Loose<OutputOf<Id>>, AbilityOutput<Id>> extends true ? never : Id;
}[AbilityId];
export type OutputsMatch = Expect<Equal<OutputMismatch, never>>;

// Caller's view: defaulted fields are optional (limit has a default in contact.list).
export type ListLimitOptional = Expect<
  Equal<Record<never, never> extends AbilityInput<"contact.list"> ? true : false, true>
>;
export type CreateNeedsName = Expect<Equal<ContactCreateInput["name"], string>>;
export type NoAreaShadowsAMethod = Expect<Equal<Extract<keyof ClientCore, Area>, never>>;
export type Areas = Expect<Equal<"contact" extends Area ? true : false, true>>;

// Compile-only: never called.
export async function ergonomics(client: GantryClient): Promise<void> {
  await client.contact.create({ name: "Ada" });
  await client.workspace.doc.create({ title: "Notes" });
  await client.key.inspect();
  await client.gantry.about();
  await client.call("contact.get", { id: "ctc_1" }, { signal: AbortSignal.timeout(1000) });
  const meta = await client.callWithMeta("memory.search", { query: "x" });
  const requestId: string = meta.requestId;
  void requestId;
  // @ts-expect-error name is required
  await client.contact.create({});
  // @ts-expect-error unknown field
  await client.contact.create({ name: "Ada", nickname: "A" });
  // @ts-expect-error no such ability
  await client.contact.delete({ id: "ctc_1" });
  // @ts-expect-error no such ability id
  await client.call("contact.delete", { id: "ctc_1" });
  // @ts-expect-error input required
  await client.contact.get();
  // @ts-expect-error wrong type
  await client.contact.list({ limit: "20" });
  await client.memory.forget({ id: "mem_1" });
  await client.memory.forget({ filter: { kind: "vet" }, dryRun: true });
  // @ts-expect-error one variant or the other, never a mix with unknown fields
  await client.memory.forget({ id: "mem_1", bogus: true });
  await client.qa.checklist.create({ title: "Release", items: [{ check: "Logs clean" }] });
  // @ts-expect-error scope or items is required (anyOf)
  await client.qa.checklist.create({ title: "Release" });
  // @ts-expect-error unknown field beside the anyOf constraint
  await client.qa.checklist.create({ title: "Release", scope: "v2", typo: 1 });
}

test("client/src/generated matches the catalogue (run `npm run generate` when this fails)", () => {
  assert.deepEqual(write(true), []);
});
