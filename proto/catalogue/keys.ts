/**
 * @module catalogue/keys
 * API key abilities, owned by the keys service (spec §2.5 Key, §3, §4.3 key.*, §5, §8; issue 3).
 */
import type { AbilityEntry } from "./types.ts";
import { SCOPE_PATTERN } from "./scopes.ts";
import {
  array,
  COLLECTION_PATTERN,
  cursor,
  grantPattern,
  flag,
  integer,
  limit,
  line,
  nullable,
  number,
  object,
  SLUG_PATTERN,
  tenant,
  text,
} from "./schema.ts";
import { bool, enumOf, fields, int, list, nullableStr, nullableTimestamp, str, timestamp } from "./output.ts";

/** Key ids are `key_` followed by the keys service's opaque suffix. */
const KEY_ID_PATTERN = "^key_[A-Za-z0-9_-]+$";

function keyId(description: string) {
  return text(description, 64, { min: 5, pattern: KEY_ID_PATTERN });
}

/** A key's own rate limit as stored, or null. */
function rateLimitOut(description: string) {
  return nullable(
    fields({
      limit: int("Requests allowed per window."),
      windowSeconds: int("Window length in seconds."),
    }),
    description,
  );
}

/** The raw secret of a freshly minted key: in this one result and nowhere else. */
function rawKey() {
  return str(
    "The raw API key (`gk_` + 36 base62 characters). Shown ONCE, in this result only: Gantry stores just its SHA-256 hash and can never show it again, so store it now (e.g. in a secret manager) and never log it. Send it as `Authorization: Bearer <key>`; if it is lost, rotate or revoke the key.",
    { pattern: "^gk_[0-9A-Za-z]{36}$" },
  );
}

/** What can happen to a key, as its event trail records it. */
export const KEY_EVENT_KINDS = ["issued", "rotated", "revoked", "expired"] as const;

/** One entry of a key's event trail. */
const keyEvent = () =>
  fields(
    {
      kind: enumOf(
        "What happened: `issued` (minted by key.issue, key.rotate or at start), `rotated` (a successor was minted), `revoked`, or `expired` (its expiry passed).",
        KEY_EVENT_KINDS,
      ),
      at: timestamp("When it happened (RFC 3339)."),
      reason: nullableStr("Reason given (revocation reason, rotation note), or null."),
      actorKeyId: nullableStr("Id of the key that made the change, or null (expiry, bootstrap at start)."),
      requestId: nullableStr("Request id of the call that made the change, or null when no call did."),
    },
    [],
    { description: "One event of the key's trail." },
  );

/** The fields shared by every result that describes one key (never its secret). */
const keyCore = () => ({
  id: str("Key id (`key_…`; legacy keys `key_legacy_…`)."),
  tenant: str("Tenant the key belongs to."),
  name: str("Human-readable name of the key."),
  prefix: str(
    "First characters of the secret (`gk_` + 8), enough to recognise the key without revealing it; for a legacy key whatever its secret starts with (empty for a legacy key no longer configured).",
  ),
  scopes: list("Scopes the key holds: ability ids, `<prefix>.*` patterns or `*`.", str("One scope.")),
  collections: list(
    "Memory collections the key may use (`*`: every one); the first named one is the default of memory abilities.",
    str("A collection name."),
  ),
  products: list("Products (guide recipes) the key may publish guides to (`*`: every one).", str("A product name.")),
  subTenants: bool("Whether the key may act for sub-tenants through `context.tenantId`."),
  admin: bool("Whether the key is an admin (root) key."),
  rateLimit: rateLimitOut("The key's own rate limit; null means the deployment default applies."),
});

/** A key as key.inspect and key.list show it (no secret). */
const keyViewProps = () => ({
  ...keyCore(),
  status: enumOf(
    "`active`, `expired` (its expiry has passed; e.g. the old key after a rotation's overlap) or `revoked`.",
    ["active", "expired", "revoked"],
  ),
  created: nullableTimestamp("When the key was minted (RFC 3339); null for legacy keys."),
  expires: nullableTimestamp("When the key stops working (RFC 3339); null if it never expires."),
  lastUsed: nullableTimestamp(
    "Last authenticated request (RFC 3339), from the gateways' batched usage reports (may trail by ~5 s); null if never used.",
  ),
  revoked: nullableTimestamp("When the key was revoked (RFC 3339); null unless revoked."),
  rotatedTo: nullableStr("Id of the successor minted by key.rotate; null if the key was not rotated."),
  rotatedFrom: nullableStr("Id of the key this one was rotated from; null if it was not minted by a rotation."),
  source: enumOf("`key` (stored key) or `legacy` (from GANTRY_LEGACY_KEYS).", ["key", "legacy"]),
});

/** A freshly minted key: the raw secret once, plus what was stored. */
const mintedProps = () => ({
  ...keyCore(),
  key: rawKey(),
  created: timestamp("When the key was minted (RFC 3339)."),
  expires: nullableTimestamp("When the key stops working (RFC 3339); null if it never expires."),
});

export const abilities = [
  {
    id: "key.inspect",
    summary:
      "Report what the calling key may do: tenant, expanded abilities, collections, flags, id, prefix, dates, and its event trail.",
    inputSource: "spec",
    input: object({}),
    output: fields(
      {
        ...keyViewProps(),
        abilities: list(
          "Ability ids the key may call, sorted: its scopes expanded against the live catalogue, plus the abilities open to every key.",
          str("An ability id."),
        ),
        actingTenant: str("The tenant this call acts for; present only when the call used `context.tenantId`."),
        events: list("The key's event trail, oldest first (the latest 50); empty for legacy keys.", keyEvent()),
      },
      ["actingTenant"],
      { description: "The calling key (never its secret)." },
    ),
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
          "Memory collections the key may use; the first is the default collection of memory abilities. `*` grants every collection (then the first named one, or `default`, is the default); only a key holding `*` may grant it.",
          text("A memory collection name, or `*`.", 64, { pattern: grantPattern(COLLECTION_PATTERN) }),
          100,
          0,
          true,
        ),
        subTenants: flag("Whether the key may act for sub-tenants through `context.tenantId`.", false),
        admin: flag("Whether the key is an admin (root) key. Only admin keys may set this.", false),
        products: array(
          "Products (guide recipes) the key may publish guides to with guide.publish; absent means none. `*` grants every product; only a key holding `*` may grant it.",
          text("A product name, or `*`.", 64, { pattern: grantPattern(SLUG_PATTERN) }),
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
    output: fields(mintedProps(), [], {
      description: "The new key. `key` is its raw secret, returned this once and never again.",
    }),
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
    output: fields(
      {
        keys: list(
          "Keys, newest first (no secrets).",
          fields(
            { ...keyViewProps(), events: list("The key's event trail, oldest first (the latest 20).", keyEvent()) },
            ["events"],
            {
              description: "One key. `events` is present only with `includeEvents`.",
            },
          ),
        ),
        nextCursor: nullableStr("Pass as `cursor` to get the next page; null on the last page."),
        legacyRequests: int(
          "Requests authenticated through GANTRY_LEGACY_KEYS so far (within the tenant filter). Admin keys only: absent for tenant keys.",
        ),
        legacyKeys: list(
          "Legacy credentials (within the tenant filter), with their usage. Admin keys only: absent for tenant keys.",
          fields(
            {
              id: str("Legacy key id (`key_legacy_…`)."),
              tenant: str("Tenant of the legacy key."),
              name: str("Name of the legacy key."),
              prefix: str("First characters of its secret; empty when it is no longer configured."),
              scopes: list("Its scopes; empty when it is no longer configured.", str("One scope.")),
              requests: int("Requests it authenticated so far."),
              lastUsed: nullableTimestamp("Its last authenticated request (RFC 3339); null if never used."),
              configured: bool(
                "Whether it is still in GANTRY_LEGACY_KEYS (false: removed, only its usage record is left).",
              ),
            },
            [],
            { description: "One legacy credential." },
          ),
        ),
      },
      ["legacyRequests", "legacyKeys"],
      { description: "One page of keys: `{keys, nextCursor}`, plus the legacy summary for admin keys." },
    ),
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
    output: fields(
      {
        id: str("Id of the revoked key."),
        status: enumOf("Always `revoked`.", ["revoked"]),
        revoked: timestamp("When the key was revoked (RFC 3339); the original time if it was already revoked."),
        effectiveBy: timestamp(
          "Guarantee (RFC 3339): revocation time + the 30 s auth cache bound; the latest moment any gateway could still accept the key, even if a notice were lost.",
        ),
        notified: bool(
          "Whether the revocation notice to the gateways was published (it normally takes effect at once).",
        ),
        alreadyRevoked: bool("Present (true) only when the key was already revoked and nothing changed."),
      },
      ["alreadyRevoked"],
      { description: "The revocation." },
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
    output: fields(
      {
        ...mintedProps(),
        previous: fields(
          {
            id: str("Id of the rotated (old) key."),
            expires: timestamp(
              "When the old key stops working (RFC 3339): now + overlapHours, or its earlier existing expiry.",
            ),
          },
          [],
          { description: "The old key, which keeps working until `expires`." },
        ),
      },
      [],
      {
        description:
          "The successor key (same tenant, name, scopes, collections, products, flags, rate limit and expiry as the old one). `key` is its raw secret, returned this once and never again.",
      },
    ),
    example: { id: "key_01J9Z3K7Q8R2M4N6P0S5T1V3W7", overlapHours: 48 },
  },
] as const satisfies readonly AbilityEntry[];
