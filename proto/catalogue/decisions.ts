/**
 * @module catalogue/decisions
 * One line per ability on what we decided where the spec is silent: every ability whose input is
 * ours (`inputSource: "ours"`), and spec-shaped abilities where we filled a gap (action values,
 * nested shapes, bounds). docs/abilities.md opens with this list; the catalogue test checks that
 * every `ours` ability has an entry and every entry names a real ability.
 */

/** Conventions that apply to every ability; listed once at the top of the docs. */
export const conventions: readonly string[] = [
  "`{base_url}` in the spec's id list is the ability `gantry.about` (BRIEF).",
  "Every input is a closed object (`additionalProperties: false`); unknown fields are a 400, not silently ignored.",
  "Strings are non-empty and bounded; ids ≤ 128 characters; single-line titles ≤ 200; long texts 20 000–500 000 characters.",
  "Counts the spec types as `number` (memory.search `limit`, memory.recall `k`) are integers; hours stay numbers (fractions allowed).",
  "List abilities take `limit` (integer 1..100, default 20) and an opaque `cursor` (the previous page's `nextCursor`).",
  "Create-like abilities a retry could duplicate take `idempotencyKey` (1..255): same key + same input → first result; same key + different input → 409.",
  "Money is `amount` in major units (> 0) + `currency` (ISO 4217, `^[A-Z]{3}$`); services store integer minor units and check precision per currency.",
  "Union inputs are `oneOf` closed variants told apart by a const `action` (or `channel`, `op`, `type`); a variant whose discriminator may be omitted has no `default` (Ajv ignores defaults inside `oneOf`), the omission itself selects it.",
  "Metadata is at most 50 keys (`^[A-Za-z_][A-Za-z0-9_.-]{0,63}$`) with string (≤ 500), number or boolean values.",
  "`context` (tenantId, runId, verticalId) is part of the request envelope, never of an input schema.",
  "404 is the spec's \"no ability has the requested id\" (code `unknown_ability`, detail code `ability_not_found`); a record an input names that does not exist in the tenant is also 404 (code `not_found`), always with detail code `record_not_found` and the field's `path`, so the two are never confused.",
];

/** Per-ability decisions, keyed by ability id. */
export const decisions: Readonly<Record<string, string>> = {
  // gateway
  "capability.discover":
    "`{query?, area?, limit?}`; `area` is an enum of the 28 areas; ranked, so `limit` defaults to 10 and there is no cursor (the catalogue is small).",
  "gantry.about":
    "Empty input `{}`: everything it reports (version, URLs, abilities, limits, tenant) follows from the calling key.",
  // keys
  "key.inspect":
    "Empty input; the result adds to the spec's fields `name`, `status` (active, expired, revoked), `source` (key or legacy), `scopes`, `products`, `rateLimit` (null = deployment default), `rotatedTo`/`rotatedFrom` and `events`, the calling key's event trail (issued, rotated, revoked with reason, expired).",
  "key.issue":
    "`scopes` 1..200 unique well-formed scopes, each matching at least one ability (else 400 `unknown_scope`); `expiresInHours` 1..87 600; `rateLimit` `{limit, windowSeconds}` both required; omitted expiry and rate limit inherit the issuing tenant key's; a tenant key exceeding itself (scopes by pattern coverage, collections, products, flags, rate limit, expiry, tenant) gets 403 with one `details` entry per excess (`code` `exceeds_caller`); no idempotencyKey because replaying would require storing the raw secret, which is only ever shown once.",
  "key.list":
    "Spec fields plus `limit`/`cursor` pagination and `includeEvents` (each row's event trail); result `{keys, nextCursor}` newest first; expired keys are listed with status `expired`; admin results add `legacyRequests` and `legacyKeys`.",
  "key.revoke":
    'Key ids must match `^key_[A-Za-z0-9_-]+$`; `reason` ≤ 500; `confirmSelf` has no default (absent = not confirmed; revoking the calling key without it → 400 `confirm_self_required`); another tenant\'s key is 404; result `{id, status: "revoked", revoked, effectiveBy, notified}`, `effectiveBy` being the 30 s cache bound (gateways drop the key on a NATS notice at once).',
  "key.rotate":
    "Result `{id, key, prefix, tenant, name, scopes, created, expires, previous: {id, expires}}`; the successor copies every attribute including the absolute expiry; a second rotation of the same key → 409 `already_rotated`; revoked/expired keys → 409; a tenant key may rotate only keys no wider than itself (403).",
  // connections
  "connection.authorize":
    "Action values are `start` (may be omitted), `complete`, `revoke`, `share`; `sessionUri` and `returnUrl` are URIs, `expiresAt` RFC 3339; `toolIds` 1..100 unique. `returnUrl` must be a redirect URI registered for the service (OAuth providers only redirect to registered URIs); `sessionUri` is the full URL the provider redirected to; `complete` is accepted only from the key that ran `start` (403 otherwise), once (409), within 10 minutes (400). `share` is accepted only from the connection's owner (403 otherwise), for a connection that is not revoked (409), another principal than the owner, and an `expiresAt` in the future (400), `toolIds` naming existing tool versions (404); `revoke` with `shareId` ends one share (a share of another connection is 404); revoking the connection ends its shares. A use through an expired, revoked or tool-less share is refused with 403.",
  "connection.list":
    "`{service?, status?, limit, cursor}`; status is pending | connected | needs_reauth | revoked (needs_reauth: the provider refused a refresh; consent must be given again).",
  "integration.app.connect":
    "`{toolkit, returnUrl?, label?, credentials?, token?, idempotencyKey?}`: OAuth via returnUrl, API-key toolkits via `credentials` (string values, never echoed), or for github and slack a `token` the user made there (GitHub personal access token, Slack bot token: no OAuth app needed), checked with the provider before it is stored (refused → 400 `/input/token`; provider unreachable → 503); without an OAuth app for the toolkit, `token` is required (400 naming it).",
  "integration.app.connections": "`{toolkit?, status?, limit, cursor}`, same statuses as connection.list.",
  "integration.app.execute":
    "`{tool, arguments, connectionId?, idempotencyKey?}`: tool slug from integration.app.tools; without connectionId the principal's only account of that toolkit is used (several → refused, never guessed).",
  "integration.app.toolkits": "`{query?, category?, limit, cursor}`.",
  "integration.app.tools":
    "`{toolkit, query?, limit, cursor}`: toolkit is required (cross-toolkit discovery is integration.search).",
  "integration.search": "Action values are `connections` (listing) and `tools` (discovery; may be omitted).",
  // payments
  "payment.initiate":
    "provider_b without customerEmail fails validation (`if`/`then`), not at the provider; amount > 0 in major units; currency `^[A-Z]{3}$`.",
  "payment.list":
    "Filters status (pending | succeeded | failed | cancelled | expired | refunded — our status set), provider, contactId, leadId, created range; paginated.",
  "payment.status": "`{id}` of a payment from payment.initiate.",
  "payout.balance": "`{currency?}`; omitted returns every currency held.",
  "payout.batch":
    "`{items (1..500), description?, idempotencyKey}` — idempotencyKey is required for money leaving the platform (as PayPal's sender_batch_id and Wise's customerTransactionId are); items succeed or fail individually.",
  "payout.list":
    "Filters status (pending | processing | paid | failed | cancelled | reversed — our status set), batchId, recipientId, created range; paginated.",
  "payout.send":
    "`{recipientId, amount, currency, description?, metadata?, idempotencyKey}`; recipients come only from payout.verify_account; idempotencyKey is required.",
  "payout.status": "`{id}` accepts a payout id or a batch id.",
  "payout.verify_account":
    "`{country, currency, accountNumber, bankCode?, accountName?}`: resolves the holder name (and reports a name match when accountName is given) and registers the account as a recipient for payout.send.",
  // memory
  "memory.save":
    "`{text (≤ 32 000), collection?, metadata?, id?}`: `id` upserts; without it a memory of the same tenant + collection with cosine ≥ 0.97 is updated (newest text, metadata merged) and the result says `deduplicated: true`; result `{id, collection, action: created|updated|deduplicated, deduplicated, similarity?, created, updated, vertical, model}`; the memory keeps the call's context.verticalId as `vertical` (an update by a call naming none keeps the memory's).",
  "memory.search":
    "`limit` is an integer 1..100; `filter` grammar: `{key: value}` strict equality, per-key operators `$eq $ne $in $nin $gt $gte $lt $lte` (`$ne`/`$nin` also match an absent key; ranges only numbers), and one level of `$and`/`$or` lists (bounded, no `$ref`, so the schema embeds anywhere); score = cosine × 0.5^(age / half-life), age from the last save, half-life 30 days (`MEMORY_HALF_LIFE_DAYS`); hits with cosine ≤ 0 are left out; `vertical` (ours, issue 32 item 7) keeps only the memories saved with that context.verticalId, before ranking; without it every memory of the collection, whatever the call's context.verticalId.",
  "memory.recall":
    "`k` is an integer 1..100 (default 5); `block` is wrapped in `<retrieved_memories …>`…`</retrieved_memories>` with a note that it is data, not instructions, and memory text is escaped so it cannot close the block; `vertical` (ours) filters as memory.search's.",
  "memory.forget":
    "`oneOf` `{id, collection?}` or `{filter (≥ 1 condition), collection?, dryRun?}`; an empty filter can never delete a whole collection; result `{collection, forgotten, matched, dryRun}`; an unknown id is 404.",
  "decision.record":
    "`supersedes` must look like `D-NNN` (`^D-[0-9]{3,}$`) and name an active decision of the tenant (404 unknown, 409 already superseded); the title is one line (no CR/LF); ids are gapless per tenant (D-999 is followed by D-1000).",
  "decision.list":
    "`{query?, includeSuperseded? (default false), limit, cursor}`: newest first without `query`; with it ranked by cosine (no recency decay), each with `similarity`.",
  // content
  "document.generate":
    "Deterministic Markdown → PDF or HTML (`{title, markdown, format? pdf|html, filename?, theme?}`), themed like email.render; no model writes content.",
  "email.render":
    "Theme keys are brandColor, accentColor, logoUrl, firmName, tagline, siteUrl; props are closed per template: notice {heading, body, actionLabel+actionUrl, footer}, invoice {invoiceNumber, issueDate, dueDate, customerName, customerEmail, currency, items, taxRate, notes, payUrl}, receipt {receiptNumber, paidAt, customerName, currency, items, paymentMethod, notes}.",
  "message.send":
    "`oneOf` by `channel`: email `{to, cc?, bcc?, subject, text and/or html, from?, replyTo?, idempotencyKey?}` or sms `{to (E.164, 1..50 unique), text ≤ 1600, from? (E.164 or an alphanumeric id of ≤ 11), idempotencyKey?}`; sms goes over Twilio's Messages API (one message per number, each recipient's status and Twilio sid in the result).",
  "message.send_markdown":
    "`to` is one address or 1..50 unique addresses; `from` is `addr` or `Name <addr>`; `brand` is `#RRGGBB`.",
  "guide.publish": "`slug` and `product` are kebab-case; `locale` like `en` / `pt-BR`; `route` starts with `/`.",
  "guide.list": "Omitted `locale` lists every locale (the spec gives no default).",
  "skill.list": "`{query?, limit, cursor}`.",
  // trust
  "trust.preflight":
    "`actions[].ability` must look like an ability id; at most 50 actions and 50 claims; receipts are request ids.",
  "trust.status":
    "`{runId, logFromSize?}`: runId from trust.preflight; logFromSize, the size of a receipt-log checkpoint kept earlier, asks for the consistency proof from it (`log.consistency`).",
  "plan.create": "`type` is a free slug (its values are not shown in the spec).",
  "plan.execute":
    "`{planId, phaseId?, idempotencyKey?}`: without phaseId every phase whose dependencies are met starts.",
  "plan.learn":
    "`{planId, outcome (succeeded | partial | failed | abandoned), notes?, lessons?}`; lessons go to the lessons inbox linked to the plan.",
  "plan.verify": "`{planId, phaseId?, receiptIds?}`: evidence is receipts (request ids), like trust claims.",
  "qa.checklist.create":
    "`{title, scope?, items?, planId?, vertical?, idempotencyKey?}` with at least one of scope or items (items are derived from scope when omitted).",
  // workspace
  "contact.get": "`{id}`.",
  "contact.list": "`{query?, limit, cursor}`; query matches name, email, company, phone.",
  "contact.update":
    "Partial update `{id, …}` with at least one field besides id; `null` clears phone, email or company; metadata merges and a `null` value removes a key.",
  "lead.create":
    "`{name, contactId?, email?, company?, source?, value? {amount, currency}, notes?, idempotencyKey?}`; new leads start in `new`.",
  "lead.get": "`{id}`.",
  "lead.list": "`{status?, query?, limit, cursor}`; statuses new | contacted | qualified | won | lost.",
  "lead.update_status":
    "Target status is contacted | qualified | won | lost (nothing moves back to new); illegal moves are 409 with the allowed next states.",
  "task.create": "`priority` defaults to medium; `dueInHours` is > 0 and ≤ 17 520 (two years), fractions allowed.",
  "task.get": "`{id}`.",
  "task.list": "`{status?, assignedTo?, priority?, overdue?, limit, cursor}`.",
  "task.update_status": "`{id, status, note?}` over open | in_progress | blocked | done | cancelled.",
  "workspace.doc.close": "`{id}`; closing is final (patch/comment then 409).",
  "workspace.doc.comment": "`{id, text, anchor?}`; anchor is an exact passage of the doc.",
  "workspace.doc.create": "`{title, content?, idempotencyKey?}`; content is Markdown and may be empty.",
  "workspace.doc.list": "`{status? open | closed, query?, limit, cursor}`.",
  "workspace.doc.patch":
    "`oneOf` full `content` or `ops`, always with `baseVersion`; ops are text-anchored (`replace`, `insert_after`, `append`; anchors must occur exactly once) rather than offsets, so agents can patch without counting characters.",
  "workspace.doc.read": "`{id}`.",
  "event.emit":
    "Event names are dot-separated tokens `[A-Za-z0-9_-]` (≤ 128, no wildcards) because they become NATS subject tokens; payload size is enforced by the service.",
  "workflow.trigger": "`{workflow, input?, idempotencyKey?}`; workflow names have no dots (one subject token).",
  "vertical.list": "`{limit, cursor}`.",
  "sim.generate": "`{vertical, seed? (0..2^31-1), size? small | medium (default small), idempotencyKey?}`.",
  "sim.list": "`{vertical?, limit, cursor}`.",
  // web
  "web.browse":
    "`{url, format? markdown|text|html, waitUntil?, maxChars?, screenshot?, viewport?, timeoutMs?}`; only http(s) URLs.",
  "web.research": "`{query, maxSources? (1..20, default 5), recencyDays?, includeDomains?, excludeDomains?, locale?}`.",
  "research.verify":
    'Variants: `search` `{action?, query, maxSources?, recencyDays?}` (matches the spec\'s sample call with a query) and `capture` `{action: "capture", urls (1..10 registered official pages), focus?}`.',
  "qa.browser_check":
    "`{url, checks?, viewport?, screenshot?, timeoutMs?}`; checks are `oneOf` by `type`: status, text, selector, no_console_errors.",
};
