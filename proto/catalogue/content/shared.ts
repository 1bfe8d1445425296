/**
 * @module catalogue/content/shared
 * The value lists and schema builders that more than one of the content service's areas use; each
 * area's own builders sit in its file beside its entries.
 */
import { str } from "../output.ts";
import { line, object, text, url } from "../schema.ts";

export const HEX_COLOUR = "^#[0-9A-Fa-f]{6}$";

export function colour(description: string, defaultValue?: string) {
  return text(description, 7, { min: 7, pattern: HEX_COLOUR, default: defaultValue });
}

/** The per-tenant theme of email.render and document.generate (keys are ours; spec §4.3 names them loosely). */
export function theme() {
  return object(
    {
      brandColor: colour("Main brand colour, `#RRGGBB` (header, buttons)."),
      accentColor: colour("Secondary colour, `#RRGGBB` (links, highlights)."),
      logoUrl: url("Logo image URL (https recommended; shown in the header)."),
      firmName: line("Business name shown in header and footer.", 200),
      tagline: line("Short line under the business name.", 200),
      siteUrl: url("Business website linked from the footer."),
    },
    [],
    {
      description:
        "Per-tenant theme. Every key is optional; omitted keys use Gantry's neutral default (brand #1e3a5f, accent #2563eb, no logo, firm name, tagline or site). Links and the logo must be http(s); other schemes are dropped.",
    },
  );
}

export const SHA256_HEX = "^[0-9a-f]{64}$";

/** A Gantry-issued id with its prefix: `<prefix>_` followed by letters and digits. */
export function prefixedId(prefix: string, description: string) {
  return str(description, { pattern: `^${prefix}_[A-Za-z0-9]+$` });
}

export function sha256(description: string) {
  return str(description, { pattern: SHA256_HEX });
}
