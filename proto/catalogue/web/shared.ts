/**
 * @module catalogue/web/shared
 * The value lists and schema builders that more than one of the web service's areas use; each
 * area's own builders sit in its file beside its entries.
 */
import { fields, int, str, timestamp } from "../output.ts";
import { integer, nullable, oneOfValues } from "../schema.ts";

export function timeoutMs(defaultValue = 30_000) {
  return integer("Give up after this many milliseconds (1000..60000).", 1000, 60_000, defaultValue);
}

export function viewport() {
  return oneOfValues(
    "Viewport to emulate: desktop 1366×768 or mobile 390×844 (touch, mobile user agent).",
    ["desktop", "mobile"],
    "desktop",
  );
}

// ---- Results ----------------------------------------------------------------------------------

export const SHA256_HEX = "^[0-9a-f]{64}$";

export function sha256(description: string) {
  return str(description, { pattern: SHA256_HEX });
}

/** A Gantry-issued id with its prefix: `<prefix>_` followed by letters and digits. */
export function prefixedId(prefix: string, description: string) {
  return str(description, { pattern: `^${prefix}_[A-Za-z0-9]+$` });
}

export function nullableInt(description: string) {
  return nullable(int("An integer."), description);
}

/** A PNG screenshot stored as an artifact behind an expiring signed link. */
export function screenshot(description: string) {
  return nullable(
    fields(
      {
        id: prefixedId("art", "Artifact id (`art_…`)."),
        url: str("Signed download URL; works without an API key until `expires`.", { format: "uri" }),
        contentType: str("Always `image/png`."),
        width: int("Width in pixels."),
        height: int("Height in pixels."),
        bytes: int("Size in bytes."),
        sha256: sha256("SHA-256 (hex) of the PNG."),
        expires: timestamp("When `url` stops working (RFC 3339)."),
      },
      [],
      { description: "A screenshot." },
    ),
    description,
  );
}
