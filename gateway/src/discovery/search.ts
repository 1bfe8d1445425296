/**
 * @module gateway/discovery/search
 * Ranks catalogue abilities against a free-text query for capability.discover. Each ability is
 * indexed once: the words of its id (weight 6), its area (4), its summary (2), its input field
 * names (1.5) and their descriptions and allowed values (0.5). Query words are lower-cased,
 * split on punctuation and camelCase, stripped of stop words and plural/-ing endings, and widened
 * with a small synonym table (at 0.6 of the weight; the best hit counts, further synonym hits add
 * a fifth); a word that only prefixes an indexed word scores half. Matches in field descriptions
 * alone do not qualify an ability. The sum is scaled by how many query words matched, so an ability covering the whole
 * query beats one matching a single word many times. An exact id (or id fragment) wins outright.
 *
 * @example
 * rank("send an invoice by email", catalogue)[0].id; // "email.render" or "message.send", …
 */
import { catalogue, type AbilityDef } from "@gantry/proto/catalogue";
import { inputFields } from "./abilities.ts";

export interface Ranked {
  def: AbilityDef;
  score: number;
  /** Which parts matched: `id`, `area`, `summary`, `field:<name>`, `field text`. */
  matched: string[];
}

const STOP = new Set(
  "a an the to of for by with and or in on at from into onto via my our your me i we you it its this that these those is are be been do does did can could should would will want wants need needs please how what which who some any all using use there their them then than as if so".split(
    " ",
  ),
);

const SYNONYMS: Record<string, string[]> = {
  mail: ["email", "message"],
  email: ["message", "mail"],
  sms: ["message"],
  text: ["message"],
  whatsapp: ["message"],
  notify: ["message", "send"],
  pay: ["payment"],
  charge: ["payment"],
  invoice: ["payment", "email", "render"],
  checkout: ["payment"],
  bill: ["payment", "invoice"],
  refund: ["payment"],
  transfer: ["payout"],
  withdraw: ["payout"],
  disburse: ["payout"],
  balance: ["payout"],
  remember: ["memory", "save"],
  store: ["save", "memory"],
  recall: ["memory", "recall"],
  forget: ["memory", "forget"],
  note: ["memory", "lesson"],
  find: ["search", "get", "list", "discover"],
  lookup: ["search", "get"],
  look: ["search", "get"],
  query: ["search"],
  capability: ["discover"],
  ability: ["discover", "capability"],
  tool: ["discover", "capability", "integration"],
  person: ["contact"],
  people: ["contact"],
  customer: ["contact", "lead"],
  prospect: ["lead"],
  deal: ["lead"],
  todo: ["task"],
  job: ["task", "workflow"],
  doc: ["document", "workspace"],
  file: ["document"],
  pdf: ["document", "generate"],
  summary: ["summarize"],
  summarise: ["summarize"],
  token: ["key"],
  credential: ["key"],
  apikey: ["key"],
  browse: ["web"],
  website: ["web", "browse"],
  page: ["web", "browse"],
  scrape: ["web", "browse"],
  internet: ["web", "research"],
  fact: ["research", "verify"],
  check: ["verify", "status", "checklist"],
  oauth: ["connection", "authorize"],
  account: ["connection"],
  connect: ["connection", "authorize"],
  revoke: ["revoke"],
  rotate: ["rotate"],
  event: ["emit"],
  webhook: ["event", "workflow"],
  automation: ["workflow"],
  help: ["guide"],
  article: ["guide"],
  plan: ["plan"],
  test: ["qa", "sim"],
};

function stem(w: string): string {
  if (w.length > 5 && w.endsWith("ing")) return w.slice(0, -3);
  if (w.length > 4 && w.endsWith("ies")) return `${w.slice(0, -3)}y`;
  if (w.length > 4 && /(ss|x|ch|sh)es$/.test(w)) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith("s") && !w.endsWith("ss")) return w.slice(0, -1);
  return w;
}

/** Lower-cased, stemmed words of `text` (camelCase, snake_case and dotted ids are split). */
export function words(text: string, keepStop = false): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0 && (keepStop || !STOP.has(w)))
    .map(stem);
}

type Index = Map<string, { weight: number; where: string }>;

function addWords(index: Index, text: string, weight: number, where: string): void {
  for (const w of words(text, true)) {
    const cur = index.get(w);
    if (!cur || cur.weight < weight) index.set(w, { weight, where });
  }
}

function buildIndex(def: AbilityDef): Index {
  const index: Index = new Map();
  for (const f of inputFields(def)) {
    addWords(index, `${f.description} ${(f.values ?? []).join(" ")}`, 0.5, "field text");
    addWords(index, f.name, 1.5, `field:${f.name}`);
  }
  addWords(index, def.summary, 2, "summary");
  addWords(index, def.area, 4, "area");
  addWords(index, def.id, 6, "id");
  return index;
}

const indexes = new Map<string, Index>(catalogue.map((d) => [d.id, buildIndex(d)]));

function bestMatch(index: Index, term: string): { weight: number; where: string } | undefined {
  const exact = index.get(term);
  if (exact) return exact;
  if (term.length < 3) return undefined;
  let best: { weight: number; where: string } | undefined;
  for (const [w, hit] of index) {
    // The query word begins an indexed word ("summar" → "summarize"), or an indexed word of at least
    // four letters begins the query word with at most three more ("payouts" → "payout").
    if ((w.length >= 3 && w.startsWith(term)) || (w.length >= 4 && term.length - w.length <= 3 && term.startsWith(w))) {
      const half = { weight: hit.weight / 2, where: hit.where };
      if (!best || half.weight > best.weight) best = half;
    }
  }
  return best;
}

/** Scores every ability in `defs` against `query`; only matches (score > 0), best first, ties by id. */
export function rank(query: string, defs: readonly AbilityDef[]): Ranked[] {
  const q = query.trim().toLowerCase();
  const terms = [...new Set(words(q))];
  const out: Ranked[] = [];
  for (const def of defs) {
    const index = indexes.get(def.id) ?? buildIndex(def);
    let score = 0;
    let covered = 0;
    const matched = new Set<string>();
    for (const term of terms) {
      // The best of the word itself and its synonyms counts; further synonym hits add a little,
      // so "remember" prefers memory.save (memory + save) over memory.search (memory).
      const hits: { weight: number; where: string }[] = [];
      const direct = bestMatch(index, term);
      if (direct) hits.push(direct);
      for (const syn of SYNONYMS[term] ?? []) {
        const hit = bestMatch(index, stem(syn));
        if (hit) hits.push({ weight: hit.weight * 0.6, where: hit.where });
      }
      if (hits.length > 0) {
        hits.sort((a, b) => b.weight - a.weight);
        score += hits[0].weight + 0.2 * hits.slice(1).reduce((sum, h) => sum + h.weight, 0);
        covered++;
        matched.add(hits[0].where);
      }
    }
    if (terms.length > 0) score *= 0.5 + (0.5 * covered) / terms.length;
    if (q === def.id) {
      score += 100;
      matched.add("id");
    } else if (q.length >= 3 && def.id.includes(q)) {
      score += 20;
      matched.add("id");
    }
    // Field descriptions and allowed values refine the order but never qualify an ability alone
    // (capability.discover's `area` enum would otherwise match every area name).
    if (score > 0 && [...matched].some((m) => m !== "field text"))
      out.push({ def, score: Math.round(score * 100) / 100, matched: [...matched] });
  }
  return out.sort((a, b) => b.score - a.score || (a.def.id < b.def.id ? -1 : 1));
}
