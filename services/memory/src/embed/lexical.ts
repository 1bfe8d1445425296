/**
 * @module memory/embed/lexical
 * `lexical-hash-v1`: the fallback embedder (`EMBEDDER=lexical`, or when the sentence model cannot
 * load), which needs no network and no model weights. It is
 * honest about what it is: a bag of hashed lexical features, not a language model. It matches
 * shared words (and their plural forms), word pairs and spelling variants or typos (through
 * character trigrams); it does not match paraphrases or synonyms ("dog" vs "puppy").
 *
 * Features of a text (after Unicode NFKD, diacritics removed, lower-cased, split on anything that is
 * not a letter or digit):
 *  - each word, lightly stemmed (plural `s`/`es`/`ies`, possessive `'s`): weight 1.0, or 0.15 for
 *    common English function words;
 *  - each pair of adjacent words: weight 0.5;
 *  - each character trigram of each word padded as `^word$`: weight 0.6 / √(trigrams in the word).
 *
 * Each feature is hashed (FNV-1a, then an avalanche mix) to one of 768 dimensions with a sign taken
 * from another bit of the hash (signed feature hashing, so collisions cancel out on average instead
 * of adding up), the weights are summed, and the vector is L2-normalised. Queries and documents are
 * embedded the same way.
 *
 * @example
 * const e = new LexicalHashEmbedder();
 * const [v] = await e.embed(["Biscuit is allergic to chicken"], "document");
 */
import { DIMENSIONS, dot, normalise, type EmbedKind, type Embedder, type Matching } from "./types.ts";

export const LEXICAL_MODEL = "lexical-hash-v1";

const STOPWORDS = new Set(
  (
    "a an and are as at be been but by can could did do does for from had has have he her his how i if in into is it its " +
    "me my no not of on or our she so than that the their them then there these they this to too us was we were what when " +
    "where which who whom why will with would you your"
  ).split(" "),
);

const WORD_WEIGHT = 1.0;
const STOPWORD_WEIGHT = 0.15;
const BIGRAM_WEIGHT = 0.5;
const TRIGRAM_WEIGHT = 0.6;

/** Lower-case words without diacritics. */
export function tokenize(text: string): string[] {
  return (
    text
      .normalize("NFKD")
      .replace(/\p{M}+/gu, "")
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/** A deliberately light stemmer: possessives and regular plurals only. */
export function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  if (word.endsWith("ies") && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(?:ss|us|is)$/.test(word)) return word;
  if (/(?:ches|shes|xes|sses|zes)$/.test(word)) return word.slice(0, -2);
  if (word.endsWith("s")) return word.slice(0, -1);
  return word;
}

function hash(feature: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < feature.length; i++) {
    h ^= feature.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  // Avalanche (murmur3 finaliser) so that nearby inputs spread over all bits.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function add(v: Float32Array, feature: string, weight: number): void {
  const h = hash(feature);
  const index = h % v.length;
  v[index] += (h & 0x80000000) !== 0 ? -weight : weight;
}

/** The unnormalised feature vector of one text. */
export function lexicalFeatures(text: string, dimensions = DIMENSIONS): Float32Array {
  const v = new Float32Array(dimensions);
  const words = tokenize(text);
  const stems = words.map(stem);
  for (let i = 0; i < words.length; i++) {
    const w = stems[i];
    add(v, `w:${w}`, STOPWORDS.has(words[i]) ? STOPWORD_WEIGHT : WORD_WEIGHT);
    if (i > 0) add(v, `b:${stems[i - 1]} ${w}`, BIGRAM_WEIGHT);
    const padded = `^${words[i]}$`;
    const count = padded.length - 2;
    if (count > 0 && !STOPWORDS.has(words[i])) {
      const weight = TRIGRAM_WEIGHT / Math.sqrt(count);
      for (let j = 0; j < count; j++) add(v, `c:${padded.slice(j, j + 3)}`, weight);
    }
  }
  return v;
}

/**
 * How alike two texts are in wording: their lexical-hash-v1 cosine (1 for the same words in any
 * case or punctuation, well below 0.97 once a word, number or id differs).
 */
export function wordingSimilarity(a: string, b: string): number {
  return dot(normalise(lexicalFeatures(a)), normalise(lexicalFeatures(b)));
}

export class LexicalHashEmbedder implements Embedder {
  readonly model = LEXICAL_MODEL;
  readonly dimensions = DIMENSIONS;
  readonly matching: Matching = "lexical";

  async embed(texts: string[], _kind: EmbedKind): Promise<Float32Array[]> {
    return texts.map((t) => normalise(lexicalFeatures(t, this.dimensions)));
  }
}
