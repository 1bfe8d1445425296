/**
 * @module kit/data/canonical
 * Canonical JSON (object keys sorted, recursively; undefined members dropped) and SHA-256: the
 * identity of an input, independent of key order. Idempotency compares inputs with it.
 *
 * @example
 * canonicalJson({ b: 1, a: [2, { d: 3, c: 4 }] }); // '{"a":[2,{"c":4,"d":3}],"b":1}'
 */
import { hash } from "node:crypto";

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(",")}}`;
}

export function sha256Hex(text: string): string {
  // The one-shot hash, not a Hash object per call: about a third of the CPU for inputs this size.
  return hash("sha256", text, "hex");
}
