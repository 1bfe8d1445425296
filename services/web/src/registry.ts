/**
 * @module web/registry
 * The registry of official pages research.verify may capture, from `WEB_OFFICIAL_PAGES`: JSON
 * `{"<tenant>" | "*": ["https://www.example.gov/tax/", …]}`, where `*` applies to every tenant. An
 * entry is a URL prefix on a path boundary: `https://x.gov/tax/` registers every page under `/tax/`;
 * `https://x.gov/tax/rates` registers that page (and its query variants) only. Checked at start, so a
 * bad entry stops the process with a message naming it.
 */
import { ConfigError } from "@gantry/kit";

export type Registry = ReadonlyMap<string, readonly URL[]>;

export function parseRegistry(raw: string): Registry {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError("WEB_OFFICIAL_PAGES: not valid JSON");
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed))
    throw new ConfigError('WEB_OFFICIAL_PAGES: must be a JSON object {"<tenant>" | "*": ["https://…", …]}');
  const out = new Map<string, URL[]>();
  for (const [tenant, list] of Object.entries(parsed)) {
    if (!Array.isArray(list)) throw new ConfigError(`WEB_OFFICIAL_PAGES.${tenant}: must be a list of URLs`);
    out.set(
      tenant,
      list.map((entry, i) => {
        let u: URL;
        try {
          u = new URL(String(entry));
        } catch {
          throw new ConfigError(`WEB_OFFICIAL_PAGES.${tenant}[${i}]: not an absolute URL`);
        }
        if (u.protocol !== "https:" && u.protocol !== "http:")
          throw new ConfigError(`WEB_OFFICIAL_PAGES.${tenant}[${i}]: must be http or https`);
        u.hash = "";
        u.search = "";
        return u;
      }),
    );
  }
  return out;
}

/** Whether `url` is registered for `tenant` (its own entries and the `*` ones). */
export function isRegistered(registry: Registry, tenant: string, url: string): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  const entries = [...(registry.get(tenant) ?? []), ...(registry.get("*") ?? [])];
  return entries.some((e) => {
    if (e.origin !== u.origin) return false;
    if (e.pathname.endsWith("/")) return u.pathname.startsWith(e.pathname);
    return u.pathname === e.pathname;
  });
}
