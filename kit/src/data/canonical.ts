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
  // One string built in place, not an array of parts per level joined: every call under a run hashes
  // its input and its result this way, and idempotency its input.
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) out += i === 0 ? canonicalJson(value[i]) : `,${canonicalJson(value[i])}`;
    return `${out}]`;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).sort();
  let out = "{";
  for (const k of keys) {
    const v = obj[k];
    if (v === undefined) continue;
    out += `${out.length === 1 ? "" : ","}${JSON.stringify(k)}:${canonicalJson(v)}`;
  }
  return `${out}}`;
}

export function sha256Hex(text: string): string {
  // The one-shot hash, not a Hash object per call: about a third of the CPU for inputs this size.
  return hash("sha256", text, "hex");
}
