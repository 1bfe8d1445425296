/**
 * @module catalogue/content/guide
 * The content service's abilities of the `guide` area (Guides: help-centre guides of a product).
 * `proto/catalogue/content.ts` assembles the service's areas in order.
 */
import type { AbilityEntry } from "../types.ts";
import { bool, enumOf, fields, list, nullableStr, nullableTimestamp, num, str, timestamp } from "../output.ts";
import { flag, line, nullable, number, object, slug, text, url } from "../schema.ts";
import { sha256 } from "./shared.ts";

const LOCALE_PATTERN = "^[a-z]{2,3}(?:-[A-Z]{2})?$";

/** One guide as listed (guide.list) — the manifest entry. */
function guideEntry() {
  return fields(
    {
      slug: str("Guide slug; its URL path."),
      locale: str("Locale (e.g. en, pt-BR)."),
      title: str("Title."),
      area: str("Index section."),
      summary: nullableStr("Summary shown in the index, or null."),
      time: nullableStr('Reading or task time text (e.g. "5 min"), or null.'),
      cost: nullableStr('Cost text (e.g. "Free"), or null.'),
      route: nullableStr("In-app route the guide explains, or null."),
      order: nullable(
        num("Order."),
        "Position within its section (ascending), or null (listed after ordered guides, by title).",
      ),
      url: str("Public URL of the guide page.", { format: "uri" }),
      updated: nullableTimestamp(
        "When the guide was last published (RFC 3339), or null when the manifest does not say.",
      ),
    },
    [],
    { description: "A guide." },
  );
}

export const abilities = [
  {
    id: "guide.publish",
    summary:
      "Write a Guide Center Markdown guide into a product's guides and optionally build and deploy it; returns its public URL.",
    inputSource: "spec",
    input: object(
      {
        product: slug("Product (recipe) name; must be on the key's product allow-list."),
        slug: slug("kebab-case slug; becomes the URL path.", 100),
        locale: text("Locale of the guide (e.g. en, fr, pt-BR).", 6, {
          min: 2,
          pattern: LOCALE_PATTERN,
          default: "en",
        }),
        title: line("Guide title.", 200),
        area: line("Index section the guide is listed under.", 100),
        summary: line("One-paragraph summary shown in the index.", 500),
        time: line('Reading or task time text (e.g. "5 min").', 50),
        cost: line('Cost text (e.g. "Free", "Included in Pro").', 100),
        route: text("In-app route the guide explains (e.g. /settings/billing).", 500, { pattern: "^/" }),
        order: number("Position within its index section (ascending).", -1_000_000, 1_000_000),
        markdown: text(
          "Guide body: steps, inline labels, callout lines, slip blocks (Guide Center Markdown: GitHub-flavoured Markdown, raw HTML shown as text, plus these four; grammar in services/content/docs/guide-markdown.md). " +
            "Step: a line `Step: Title` starts a step, numbered for you through the guide; its body runs to the next step, heading or end. " +
            "Inline label: `[[Save]]` names an interface element (literal text, one line). " +
            "Callout line: `!tip Text`, kinds note, tip, important, warning, caution (`\\!` starts a plain line with !). " +
            "Slip block: `::: slip Title` … `:::`, a boxed aside of Markdown (no nesting, no steps inside). " +
            "Block constructs start at column 1 and are text inside fenced code. A broken construct is a 400 (`validation_failed`) with one detail per line: `path` /input/markdown, `code` invalid_value, `line`, `fix`; nothing is written.",
          200_000,
        ),
        deploy: flag("Build and deploy after writing; false only writes the file.", true),
      },
      ["product", "slug", "title", "area", "markdown"],
    ),
    output: fields(
      {
        product: str("Product the guide belongs to."),
        slug: str("Guide slug; its URL path."),
        locale: str("Locale of the guide."),
        title: str("Title."),
        area: str("Index section."),
        path: str(
          "Path of the written Markdown file, relative to the product's guides directory (e.g. `en/connect-payments.md`).",
        ),
        action: enumOf(
          "`created`: a new guide; `updated`: the guide with this product, locale and slug was replaced.",
          ["created", "updated"],
        ),
        sha256: sha256("SHA-256 (hex) of the written file."),
        vertical: nullableStr(
          "Vertical the guide belongs to: the context.verticalId it was first published with, or the one a later publish named; null when none did.",
        ),
        deployed: bool("Whether this call built and deployed the help centre (false when `deploy` was false)."),
        url: str(
          "Public URL of the guide page: live when `deployed` is true; otherwise where the next deploy will serve it.",
          { format: "uri" },
        ),
        helpCenterUrl: str("Base URL of the product's help centre.", { format: "uri" }),
        written: timestamp("When the file was written (RFC 3339)."),
        published: nullableTimestamp("When the deploy finished (RFC 3339); null when not deployed."),
      },
      [],
      { description: "The written guide and where it is served." },
    ),
    example: {
      product: "clinic-desk",
      slug: "connect-payments",
      locale: "en",
      title: "Connect your payment account",
      area: "Billing",
      summary: "Take card payments from clients by connecting your payment account.",
      time: "5 min",
      cost: "Free",
      route: "/settings/payments",
      order: 1,
      markdown:
        "1. Open **Settings → Payments**.\n2. Click **Connect**.\n3. Follow the provider's steps.\n\n> Tip: use a business account.",
      deploy: true,
    },
  },
  {
    id: "guide.list",
    summary: "List the guides live on a product's help centre, read from its guide manifest.",
    inputSource: "spec",
    input: object(
      {
        product: slug("Product (recipe) name."),
        locale: text("Only guides in this locale; omit for every locale.", 6, { min: 2, pattern: LOCALE_PATTERN }),
        publicUrl: url("Help-centre base URL, overriding the product's configured one."),
      },
      ["product"],
    ),
    output: fields(
      {
        product: str("Product listed."),
        locale: nullableStr("Locale filtered on, or null for every locale."),
        helpCenterUrl: str("Base URL whose manifest was read (`publicUrl` when given, else the product's).", {
          format: "uri",
        }),
        guides: list("Guides in index order: by area, then order, then title.", guideEntry()),
        generated: nullableTimestamp("When the manifest was built (RFC 3339), or null when it does not say."),
      },
      [],
      { description: "The guides live on the product's help centre, from its manifest." },
    ),
    example: { product: "clinic-desk", locale: "en" },
  },
] as const satisfies readonly AbilityEntry[];
