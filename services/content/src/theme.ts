/**
 * @module content/theme
 * The tenant theme of email.render, message.send_markdown and document.generate: the keys a caller
 * gives, over Gantry's neutral default. Every value that reaches HTML goes through `escapeHtml`
 * (text) or `safeUrl` (links and images: http(s) only).
 */

export interface Theme {
  brandColor: string;
  accentColor: string;
  logoUrl: string | null;
  firmName: string | null;
  tagline: string | null;
  siteUrl: string | null;
}

export type ThemeInput = Partial<Record<keyof Theme, string>>;

export const DEFAULT_THEME: Theme = {
  brandColor: "#1e3a5f",
  accentColor: "#2563eb",
  logoUrl: null,
  firmName: null,
  tagline: null,
  siteUrl: null,
};

/** The theme to render with: given keys win, the rest is the default. */
export function resolveTheme(input: ThemeInput | undefined, overrides: ThemeInput = {}): Theme {
  const given = { ...input, ...overrides };
  return {
    brandColor: given.brandColor ?? DEFAULT_THEME.brandColor,
    accentColor: given.accentColor ?? DEFAULT_THEME.accentColor,
    logoUrl: safeUrl(given.logoUrl),
    firmName: given.firmName ?? null,
    tagline: given.tagline ?? null,
    siteUrl: safeUrl(given.siteUrl),
  };
}

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}

/** The URL when it is http(s), else null: a `javascript:` or `data:` link never reaches a document. */
export function safeUrl(value: string | undefined | null): string | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:" ? url.href : null;
  } catch {
    return null;
  }
}
