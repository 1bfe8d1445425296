/**
 * @module catalogue/effects
 * What calling an ability can change, read from its operation (the id's last segment): read-only
 * operations can be resent after a lost response without changing anything (the typed client
 * retries them; MCP marks them `readOnlyHint`), destructive ones remove or end something (MCP
 * `destructiveHint`). Stated once, here.
 *
 * @example
 * isReadOnly("contact.list"); // true
 * isDestructive("key.revoke"); // true
 */
const READ_ONLY_OPS = new Set([
  "get",
  "list",
  "search",
  "recall",
  "status",
  "inspect",
  "discover",
  "about",
  "balance",
  "toolkits",
  "tools",
  "connections",
  "read",
  "manifest_get",
  "render",
  "summarize",
  "load",
]);

const DESTRUCTIVE_OPS = new Set(["revoke", "forget", "rotate", "close"]);

const operationOf = (id: string) => id.slice(id.lastIndexOf(".") + 1);

export function isReadOnly(id: string): boolean {
  return READ_ONLY_OPS.has(operationOf(id));
}

export function isDestructive(id: string): boolean {
  return DESTRUCTIVE_OPS.has(operationOf(id));
}
