/**
 * @module memory/filter
 * The metadata filter grammar of memory.search and memory.forget, parsed once into a small tree that
 * every vector store evaluates the same way (the Postgres store in memory, the Weaviate store by
 * translating it to a Weaviate filter and re-checking the hits).
 *
 * Grammar (the JSON Schema in proto/catalogue/schema.ts `memoryFilter` bounds it):
 *
 *     filter     := { <key>: condition, …, "$and": [leaf, …], "$or": [leaf, …] }   all parts must hold
 *     leaf       := { <key>: condition, … }                                          all must hold
 *     condition  := scalar                                   metadata[key] equals scalar
 *                 | { "$eq"|"$ne": scalar, "$in"|"$nin": [scalar, …],
 *                     "$gt"|"$gte"|"$lt"|"$lte": number, … }  every operator must hold
 *     scalar     := string | number | boolean
 *
 * Semantics: equality is strict (the string "5" does not equal the number 5); `$ne` and `$nin`
 * also match memories that lack the key; ranges only match numbers; a key the memory lacks never
 * satisfies `$eq`, `$in` or a range. `$or` needs at least one of its leaves to hold. The tenant and
 * collection are never part of the filter: they are fixed by the key before the filter is applied.
 *
 * @example
 * const match = compileFilter({ kind: "vet", age: { $gte: 2 }, $or: [{ pet: "biscuit" }, { pet: { $in: ["rex"] } }] });
 * match({ kind: "vet", age: 4, pet: "rex" }); // true
 */
import { GantryError } from "@gantry/kit";

export type Scalar = string | number | boolean;
export type Metadata = Record<string, Scalar>;

export type Op = "eq" | "ne" | "in" | "nin" | "gt" | "gte" | "lt" | "lte";

export type FilterNode =
  | { kind: "and"; children: FilterNode[] }
  | { kind: "or"; children: FilterNode[] }
  | { kind: "cond"; key: string; op: Op; value: Scalar | Scalar[] };

const OPS: Record<string, Op> = {
  $eq: "eq",
  $ne: "ne",
  $in: "in",
  $nin: "nin",
  $gt: "gt",
  $gte: "gte",
  $lt: "lt",
  $lte: "lte",
};

function isScalar(v: unknown): v is Scalar {
  return typeof v === "string" || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v));
}

function bad(path: string, message: string): GantryError {
  return new GantryError("validation_failed", `Invalid filter: ${path} ${message}.`, {
    details: [{ path, message: `${path} ${message}`, code: "filter" }],
  });
}

function conditions(key: string, cond: unknown, path: string): FilterNode[] {
  if (isScalar(cond)) return [{ kind: "cond", key, op: "eq", value: cond }];
  if (!cond || typeof cond !== "object" || Array.isArray(cond))
    throw bad(path, "must be a string, number, boolean or an operator object");
  const out: FilterNode[] = [];
  for (const [name, value] of Object.entries(cond)) {
    const op = OPS[name];
    if (!op) throw bad(`${path}/${name}`, "is not an operator ($eq $ne $in $nin $gt $gte $lt $lte)");
    if (op === "in" || op === "nin") {
      if (!Array.isArray(value) || value.length === 0 || !value.every(isScalar))
        throw bad(`${path}/${name}`, "must be a non-empty list of strings, numbers or booleans");
      out.push({ kind: "cond", key, op, value: [...value] });
    } else if (op === "eq" || op === "ne") {
      if (!isScalar(value)) throw bad(`${path}/${name}`, "must be a string, number or boolean");
      out.push({ kind: "cond", key, op, value });
    } else {
      if (typeof value !== "number" || !Number.isFinite(value)) throw bad(`${path}/${name}`, "must be a number");
      out.push({ kind: "cond", key, op, value });
    }
  }
  if (out.length === 0) throw bad(path, "needs at least one operator");
  return out;
}

function parseObject(filter: Record<string, unknown>, path: string, allowCombinators: boolean): FilterNode {
  const children: FilterNode[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (key === "$and" || key === "$or") {
      if (!allowCombinators) throw bad(`${path}/${key}`, "may only appear at the top level");
      if (!Array.isArray(value) || value.length === 0)
        throw bad(`${path}/${key}`, "must be a non-empty list of condition objects");
      const leaves = value.map((leaf, i) => {
        if (!leaf || typeof leaf !== "object" || Array.isArray(leaf) || Object.keys(leaf).length === 0)
          throw bad(`${path}/${key}/${i}`, "must be a non-empty condition object");
        return parseObject(leaf as Record<string, unknown>, `${path}/${key}/${i}`, false);
      });
      children.push({ kind: key === "$and" ? "and" : "or", children: leaves });
    } else if (key.startsWith("$")) {
      throw bad(`${path}/${key}`, "is not a combinator ($and, $or)");
    } else {
      children.push(...conditions(key, value, `${path}/${key}`));
    }
  }
  return children.length === 1 ? children[0] : { kind: "and", children };
}

/** Parses a filter (already schema-validated) into a tree; `undefined` or `{}` matches everything. */
export function parseFilter(filter: unknown, path = "/input/filter"): FilterNode | undefined {
  if (filter === undefined || filter === null) return undefined;
  if (typeof filter !== "object" || Array.isArray(filter)) throw bad(path, "must be an object");
  if (Object.keys(filter).length === 0) return undefined;
  return parseObject(filter as Record<string, unknown>, path, true);
}

function evalCond(node: Extract<FilterNode, { kind: "cond" }>, metadata: Metadata): boolean {
  const has = Object.hasOwn(metadata, node.key);
  const actual = has ? metadata[node.key] : undefined;
  switch (node.op) {
    case "eq":
      return has && actual === node.value;
    case "ne":
      return !has || actual !== node.value;
    case "in":
      return has && (node.value as Scalar[]).some((v) => v === actual);
    case "nin":
      return !has || !(node.value as Scalar[]).some((v) => v === actual);
    case "gt":
      return typeof actual === "number" && actual > (node.value as number);
    case "gte":
      return typeof actual === "number" && actual >= (node.value as number);
    case "lt":
      return typeof actual === "number" && actual < (node.value as number);
    case "lte":
      return typeof actual === "number" && actual <= (node.value as number);
  }
}

/** Evaluates a parsed filter against one memory's metadata. */
export function matches(node: FilterNode | undefined, metadata: Metadata): boolean {
  if (!node) return true;
  switch (node.kind) {
    case "and":
      return node.children.every((c) => matches(c, metadata));
    case "or":
      return node.children.some((c) => matches(c, metadata));
    case "cond":
      return evalCond(node, metadata);
  }
}

/** Parses and returns a predicate over metadata. */
export function compileFilter(filter: unknown): (metadata: Metadata) => boolean {
  const node = parseFilter(filter);
  return (m) => matches(node, m);
}
