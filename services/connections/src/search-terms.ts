/**
 * @module connections/search-terms
 * The words a search compares: `terms` of a text (what the directory's index, its vectors, a query
 * and src/tool-search.ts's scores are made of) and the synonyms a query is widened by. No imports,
 * so every search module can use it without a cycle.
 */

const STOP = new Set([
  "a",
  "an",
  "the",
  "to",
  "of",
  "in",
  "on",
  "for",
  "and",
  "or",
  "with",
  "my",
  "me",
  "i",
  "it",
  "by",
  "is",
  "be",
  "this",
  "that",
  "from",
  "at",
  "as",
  "are",
  "will",
  "can",
  "you",
  "your",
]);

/** Words people say for what API documents name otherwise (both ways), weighted below the query's own. */
export const SYNONYMS: Record<string, string[]> = {
  sms: ["message", "text"],
  text: ["message", "sms"],
  email: ["mail", "message"],
  mail: ["email"],
  send: ["create", "post"],
  post: ["create", "send"],
  list: ["get", "search"],
  find: ["search", "list"],
  search: ["find", "query", "list"],
  delete: ["remove"],
  remove: ["delete"],
  update: ["modify", "edit", "patch"],
  edit: ["update"],
  add: ["create"],
  insert: ["create", "add"],
  upload: ["insert", "create"],
  create: ["add", "new"],
  photo: ["image", "picture"],
  image: ["photo", "picture"],
  picture: ["image", "photo"],
  payment: ["charge", "pay"],
  pay: ["payment", "charge"],
  charge: ["payment"],
  weather: ["forecast"],
  forecast: ["weather"],
  translate: ["translation"],
  translation: ["translate"],
  user: ["account", "member"],
  file: ["document", "upload"],
  video: ["movie"],
  movie: ["film", "video"],
  calendar: ["event", "schedule"],
  meeting: ["event", "calendar"],
  issue: ["ticket", "bug"],
  ticket: ["issue"],
  repo: ["repository"],
  repository: ["repo"],
  crypto: ["cryptocurrency", "bitcoin"],
  bitcoin: ["crypto", "cryptocurrency"],
  stock: ["quote", "market"],
  geocode: ["address", "location"],
  address: ["geocode", "location"],
  location: ["geocode", "place"],
};

/**
 * The search terms of a text (directory index and queries alike): camelCase and snake_case split,
 * lower case, stop words dropped, a plural made singular (`issues` → `issue`, `repositories` → `repository`), numbers kept short.
 */
export function terms(text: string): string[] {
  const out = new Set<string>();
  for (const raw of text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)) {
    if (!raw || STOP.has(raw) || raw.length > 30 || (raw.length > 4 && /^[0-9]+$/.test(raw))) continue;
    out.add(
      raw.length > 4 && raw.endsWith("ies")
        ? `${raw.slice(0, -3)}y`
        : raw.length > 3 && raw.endsWith("s") && !raw.endsWith("ss")
          ? raw.slice(0, -1)
          : raw,
    );
  }
  return [...out];
}
