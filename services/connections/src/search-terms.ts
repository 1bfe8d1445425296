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
  find: ["search", "list", "detect"],
  detect: ["find"],
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
  bug: ["issue"],
  ticket: ["issue"],
  repo: ["repository"],
  repository: ["repo"],
  crypto: ["cryptocurrency", "bitcoin"],
  bitcoin: ["crypto", "cryptocurrency"],
  stock: ["quote", "market"],
  geocode: ["address", "location"],
  address: ["geocode", "location"],
  location: ["geocode", "place"],
  // Everyday verbs for what API documents name by the operation (CRUD, HTTP method): "report a bug"
  // is creating an issue, "cancel a meeting" deleting an event, "show my orders" listing them.
  ...Object.fromEntries(
    Object.entries({
      create: ["report", "open", "raise", "submit", "make", "write", "publish", "start"],
      delete: ["cancel", "erase", "discard", "destroy", "trash", "drop"],
      get: ["show", "view", "fetch", "retrieve", "read", "lookup"],
      update: ["change", "rename", "modify"],
    }).flatMap(([operation, verbs]) => verbs.map((v) => [v, [operation]])),
  ),
  // A language named is text in or into it: what translation and language-detection APIs say.
  ...Object.fromEntries(
    ["english", "french", "spanish", "german", "italian", "portuguese", "chinese", "japanese", "russian", "arabic"].map(
      (l) => [l, ["language", "translate"]],
    ),
  ),
};

/**
 * Words a request says that name nothing an API document would: people it stands for ("their",
 * "someone") and the possessive's "s" ("a customer's phone" is a customer and a phone). Dropped
 * from queries only: the directory's index was built with {@link terms} and keeps its own.
 */
const QUERY_STOP = new Set([
  "s",
  "their",
  "them",
  "they",
  "his",
  "her",
  "its",
  "our",
  "we",
  "us",
  "someone",
  "something",
]);

/** Idioms read as the one word APIs use for them, before a query is split into terms. */
const IDIOMS: [string, string][] = [
  ["money back", "refund"],
  // Phrasal verbs, read as the one verb an API document would say.
  ["call off", "cancel"],
  ["throw away", "discard"],
  ["get rid of", "delete"],
  ["look up", "lookup"],
  ["set up", "create"],
  ["sign up", "register"],
  ["turn off", "disable"],
  ["turn on", "enable"],
];

/**
 * Means of sending that a request uses as its verb ("text a customer", "email my team"): said first
 * and followed by whom, they mean sending one, as APIs name the operation. Followed by anything else
 * they stay the thing ("text to speech", "email address validation").
 */
const SENDING = new Set(["text", "sms", "email", "mail", "message", "fax"]);
const RECIPIENT = new Set([
  "a",
  "an",
  "the",
  "my",
  "our",
  "your",
  "their",
  "his",
  "her",
  "someone",
  "everyone",
  "them",
  "him",
  "me",
  "us",
  "all",
]);

/** The terms of a query: {@link terms}, idioms read as their word, {@link QUERY_STOP} dropped. */
export function queryTerms(query: string): string[] {
  // Padded words, so an idiom matches whole words only ("recall offers" holds no "call off").
  let text = ` ${query.toLowerCase().replace(/[^a-z0-9]+/g, " ")} `;
  const [first, second] = text.trim().split(" ");
  if (first && second && SENDING.has(first) && RECIPIENT.has(second)) text = ` send${text}`;
  for (const [idiom, word] of IDIOMS) text = text.split(` ${idiom} `).join(` ${word} `);
  return terms(text).filter((t) => !QUERY_STOP.has(t));
}

/** Named character references API documents use; any other becomes a space. */
const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

/**
 * A description as its reader sees it: HTML tags and Markdown link syntax dropped (a link's text
 * kept), character references decoded. API documents write descriptions in either (Stripe's are
 * HTML: `<p>Create a refund.</p>`), and a tag's or URL's words are no words of the tool's: `p`,
 * `href`, `docs` would otherwise be its terms, and what the sentence model reads.
 */
export function plainText(text: string): string {
  return (
    text
      // A link's text stays, its target goes: `[the docs](https://…)`, `![logo](…)`.
      .replace(/!?\[([^[\]]*)\]\([^()]*\)/g, "$1")
      // Inline tags sit inside a sentence ("via <a …>Connect</a>."), the others between sentences.
      .replace(/<\/?(?:a|b|i|u|em|strong|code|span|tt|sub|sup)\b[^<>]*>/gi, "")
      .replace(/<\/?[a-z][^<>]*>/gi, " ")
      .replace(/&(#[0-9]{1,7}|#x[0-9a-f]{1,6}|[a-z]{2,8});/gi, (_, ref: string) => {
        if (ref[0] !== "#") return ENTITIES[ref.toLowerCase()] ?? " ";
        const code = ref[1] === "x" || ref[1] === "X" ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1));
        return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : " ";
      })
  );
}

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
