/**
 * @module catalogue/keys
 * API key abilities, owned by the keys service (spec §2.5 Key, §3, §4.3 key.*, §5, §8; issue 3).
 */
import type { AbilityEntry } from "./types.ts";
import { SCOPE_PATTERN } from "./scopes.ts";
import { array, collection, cursor, flag, integer, limit, line, number, object, slug, tenant, text } from "./schema.ts";

/** Key ids are `key_` followed by the keys service's opaque suffix. */
const KEY_ID_PATTERN = "^key_[A-Za-z0-9_-]+$";

function keyId(description: string) {
  return text(description, 64, { min: 5, pattern: KEY_ID_PATTERN });
}

export const abilities = [
  {
    id: "key.inspect",
    summary:
      "Report what the calling key may do: tenant, expanded abilities, collections, flags, id, prefix, dates, and its event trail.",
    inputSource: "spec",
    input: object({}),
    example: {},
  },
  {
    id: "key.issue",
    summary:
      "Mint an API key with scopes, collections and limits no wider than the caller's; the raw secret is returned once.",
    inputSource: "ours",
    input: object(
      {
        name: line("Human-readable name, e.g. the app or agent using the key.", 100),
        scopes: array(
          "Abilities the key may call: exact ids (`contact.get`), prefix patterns (`workspace.*`), or `*` for all. A tenant key may only grant what it holds itself.",
          text("One scope.", 128, { pattern: SCOPE_PATTERN }),
          200,
          1,
          true,
        ),
        tenant: tenant("Tenant the key belongs to. Admin keys only; defaults to the caller's tenant."),
        collections: array(
          "Memory collections the key may use; the first is the default collection of memory abilities.",
          collection("A memory collection name."),
          100,
          0,
          true,
        ),
        subTenants: flag("Whether the key may act for sub-tenants through `context.tenantId`.", false),
        admin: flag("Whether the key is an admin (root) key. Only admin keys may set this.", false),
        products: array(
          "Products (guide recipes) the key may publish guides to with guide.publish; absent means none.",
          slug("A product name."),
          100,
          0,
          true,
        ),
        expiresInHours: number(
          "Hours until the key expires (up to 10 years). Omit for a key that does not expire.",
          1,
          87_600,
        ),
        rateLimit: object(
          {
            limit: integer("Requests allowed per window.", 1, 1_000_000),
            windowSeconds: integer("Window length in seconds.", 1, 86_400),
          },
          ["limit", "windowSeconds"],
          {
            description:
              "Per-key rate limit enforced by the gateway; a tenant key cannot grant more than its own. Omit to inherit the issuing key's limit (admin keys: the deployment default).",
          },
        ),
      },
      ["name", "scopes"],
    ),
    example: {
      name: "Support agent (production)",
      scopes: ["contact.*", "task.create", "memory.search"],
      collections: ["support"],
      expiresInHours: 720,
      rateLimit: { limit: 600, windowSeconds: 60 },
    },
  },
  {
    id: "key.list",
    summary:
      "List keys without secrets, newest first; admin keys see every tenant (optionally filtered) and legacy-store usage, tenant keys only their own.",
    inputSource: "spec",
    input: object({
      tenant: tenant("Filter to one tenant. Admin keys only; ignored for tenant keys."),
      includeRevoked: flag("Also list revoked keys.", false),
      includeEvents: flag(
        "Add each key's event trail (`events`: issued, rotated, revoked with reason, expired; oldest first, the latest 20).",
        false,
      ),
      limit: limit(),
      cursor: cursor(),
    }),
    example: { includeRevoked: false, limit: 20 },
  },
  {
    id: "key.revoke",
    summary: "Revoke a key of your tenant (admin: any); revoking the calling key needs confirmSelf true.",
    inputSource: "spec",
    input: object(
      {
        id: keyId("Id of the key to revoke (`key_…`, from key.list)."),
        reason: text("Why the key is revoked; written to the key's event trail.", 500),
        confirmSelf: flag("Must be true to revoke the key making this call."),
      },
      ["id"],
    ),
    example: { id: "key_01J9Z3K7Q8R2M4N6P0S5T1V3W7", reason: "Laptop lost; key may be exposed." },
  },
  {
    id: "key.rotate",
    summary:
      "Mint a successor key with the same tenant, name and scopes (raw key returned once) and expire the old one after overlapHours.",
    inputSource: "spec",
    input: object(
      {
        id: keyId("Id of the key to rotate (`key_…`, from key.list)."),
        overlapHours: number("Hours the old key keeps working (0 = expire it now).", 0, 336, 24),
      },
      ["id"],
    ),
    example: { id: "key_01J9Z3K7Q8R2M4N6P0S5T1V3W7", overlapHours: 48 },
  },
] as const satisfies readonly AbilityEntry[];
