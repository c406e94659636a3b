/**
 * The matching and ranking of the Meilisearch stand-in, after Meilisearch's documented behaviour:
 * - words are letters and digits, compared lower-cased and without accents; the query's first 10 words count;
 * - the last query word also matches as a prefix (unless the query ends with a separator);
 * - typo tolerance: Damerau-Levenshtein, 1 typo for words of `oneTypo` (5) characters or more, 2 from `twoTypos`
 *   (9); a typo on the first character counts as two;
 * - matching strategy `last` (default; `frequency` is treated alike): a document must contain the first word, and
 *   ranks by how many leading query words it contains; `all`: every word;
 * - ranking rules in Meilisearch's default order — words, typo, proximity, attribute (the searchable attribute's
 *   rank, then the position in it), exactness — each giving a rank out of a maximum, merged into `_rankingScore`
 *   in 0-1 the way Meilisearch does (the earlier rule weighs more: a rule only orders documents the previous
 *   rules tie);
 * - `_formatted`: matches wrapped in the highlight tags (only the matched prefix of a word for a prefix match),
 *   crops of `cropLength` words around the best group of matches with the crop marker where text was cut.
 * Not modelled: phrase search (`"…"`) and exclusion (`-word`) in `q` — quotes and minus signs are separators here —,
 * stop words, synonyms, the `sort` rule.
 */

export interface TypoToleranceSettings {
  enabled: boolean;
  minWordSizeForTypos: { oneTypo: number; twoTypos: number };
  disableOnWords: string[];
  disableOnAttributes: string[];
}

export type MatchingStrategy = "last" | "all" | "frequency";

interface WordToken {
  normalised: string;
  /** UTF-16 offsets of the word in the original text. */
  start: number;
  end: number;
  position: number;
}

export interface QueryTerm {
  word: string;
  prefix: boolean;
}

interface TermMatch {
  typos: number;
  exact: boolean;
  /** For a prefix match: how many characters of the document's word matched. */
  prefixLength?: number;
}

const MAX_QUERY_WORDS = 10;
/** Positions between the elements of an array attribute, as Meilisearch separates them. */
const ARRAY_POSITION_GAP = 8;
const MAX_PROXIMITY_COST = 7;
const MAX_POSITION_COST = 10;

export function normaliseWord(word: string): string {
  return word.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
}

export function tokenize(text: string, firstPosition = 0): WordToken[] {
  return [...text.matchAll(/[\p{L}\p{N}]+/gu)].map((match, index) => ({
    normalised: normaliseWord(match[0]),
    start: match.index,
    end: match.index + match[0].length,
    position: firstPosition + index,
  }));
}

export function queryTerms(q: string): QueryTerm[] {
  const words = tokenize(q).slice(0, MAX_QUERY_WORDS);
  const endsWithWord = words.length > 0 && /[\p{L}\p{N}]$/u.test(q);
  return words.map((token, index) => ({ word: token.normalised, prefix: index === words.length - 1 && endsWithWord }));
}

function allowedTypos(word: string, settings: TypoToleranceSettings): number {
  if (!settings.enabled || settings.disableOnWords.map(normaliseWord).includes(word)) return 0;
  const length = [...word].length;
  if (length >= settings.minWordSizeForTypos.twoTypos) return 2;
  if (length >= settings.minWordSizeForTypos.oneTypo) return 1;
  return 0;
}

/** Damerau-Levenshtein (optimal string alignment) distance, with a typo on the first character counting twice. */
function typoDistance(query: string, word: string): number {
  const a = [...query];
  const b = [...word];
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      rows[i][j] = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) rows[i][j] = Math.min(rows[i][j], rows[i - 2][j - 2] + 1);
    }
  }
  const distance = rows[a.length][b.length];
  return distance > 0 && a[0] !== b[0] ? distance + 1 : distance;
}

function matchTerm(term: QueryTerm, word: string, settings: TypoToleranceSettings, typosAllowedHere: boolean): TermMatch | undefined {
  if (word === term.word) return { typos: 0, exact: true };
  if (term.prefix && word.startsWith(term.word)) return { typos: 0, exact: false, prefixLength: [...term.word].length };
  const allowed = typosAllowedHere ? allowedTypos(term.word, settings) : 0;
  if (allowed === 0) return undefined;
  // the distance is at least the difference in length: most words are ruled out without computing it
  const whole = Math.abs([...word].length - [...term.word].length) <= allowed ? typoDistance(term.word, word) : Number.POSITIVE_INFINITY;
  if (whole <= allowed) return { typos: whole, exact: false };
  if (!term.prefix) return undefined;
  const length = [...term.word].length;
  const letters = [...word];
  let best: TermMatch | undefined;
  for (let size = Math.max(1, length - allowed); size <= Math.min(letters.length, length + allowed); size++) {
    const typos = typoDistance(term.word, letters.slice(0, size).join(""));
    if (typos <= allowed && (!best || typos < best.typos)) best = { typos, exact: false, prefixLength: size };
  }
  return best;
}

/** A document's searchable text: per attribute (in ranking order), its strings and their words. */
interface AttributeText {
  attribute: string;
  rank: number;
  values: { text: string; tokens: WordToken[] }[];
}

function textValues(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (typeof value === "number" || typeof value === "boolean") return [String(value)];
  if (Array.isArray(value)) return value.flatMap(textValues);
  return [];
}

export function attributeTexts(document: Record<string, unknown>, searchable: string[]): AttributeText[] {
  const attributes = searchable.includes("*") ? Object.keys(document) : searchable;
  return attributes.map((attribute, rank) => {
    let position = 0;
    const values = textValues(document[attribute]).map((text) => {
      const tokens = tokenize(text, position);
      position += tokens.length + ARRAY_POSITION_GAP;
      return { text, tokens };
    });
    return { attribute, rank, values };
  });
}

interface Occurrence {
  attributeRank: number;
  position: number;
  match: TermMatch;
}

/** A rule's outcome: `rank` out of `max`, higher is better. */
interface Rank {
  rank: number;
  max: number;
}

/** Meilisearch's merge of rule ranks into one score (score_details.rs: each rule subdivides the previous one's rank). */
export function globalScore(ranks: Rank[]): number {
  let rank = 1;
  let max = 1;
  for (const inner of ranks) {
    rank = Math.max(0, rank - 1) * inner.max + inner.rank;
    max *= inner.max;
  }
  return rank / max;
}

export interface RankingOptions {
  terms: QueryTerm[];
  searchable: string[];
  /** attributesToSearchOn: the attributes matched (ranking still follows `searchable`). */
  searchOn?: string[];
  typoTolerance: TypoToleranceSettings;
  matchingStrategy: MatchingStrategy;
}

/** The document's score, or undefined when it does not match. A placeholder search (no words) matches with 1. */
export function scoreDocument(document: Record<string, unknown>, options: RankingOptions): number | undefined {
  const { terms } = options;
  if (terms.length === 0) return 1;
  const texts = attributeTexts(document, options.searchable).filter((text) => !options.searchOn || options.searchOn.includes(text.attribute));
  const occurrences: Occurrence[][] = terms.map((term) =>
    texts.flatMap((text) => {
      const typosAllowed = !options.typoTolerance.disableOnAttributes.includes(text.attribute);
      return text.values.flatMap((value) =>
        value.tokens.flatMap((token) => {
          const match = matchTerm(term, token.normalised, options.typoTolerance, typosAllowed);
          return match ? [{ attributeRank: text.rank, position: token.position, match }] : [];
        }),
      );
    }),
  );
  let matchedLeading = 0;
  while (matchedLeading < terms.length && occurrences[matchedLeading].length > 0) matchedLeading++;
  if (matchedLeading === 0 || (options.matchingStrategy === "all" && matchedLeading < terms.length)) return undefined;

  const considered = occurrences.slice(0, matchedLeading);
  const words: Rank = { rank: matchedLeading, max: terms.length };

  const maxTypos = terms.slice(0, matchedLeading).reduce((sum, term) => sum + allowedTypos(term.word, options.typoTolerance), 0);
  const typos = considered.reduce((sum, found) => sum + Math.min(...found.map((occurrence) => occurrence.match.typos)), 0);
  const typo: Rank = { rank: Math.max(1, maxTypos + 1 - typos), max: maxTypos + 1 };

  let proximityCost = 0;
  for (let index = 1; index < considered.length; index++) {
    let best = MAX_PROXIMITY_COST;
    for (const left of considered[index - 1]) {
      for (const right of considered[index]) {
        if (left.attributeRank !== right.attributeRank) continue;
        const distance = right.position > left.position ? right.position - left.position : left.position - right.position + 1;
        best = Math.min(best, Math.min(distance, MAX_PROXIMITY_COST + 1) - 1);
      }
    }
    proximityCost += best;
  }
  const proximityMax = (considered.length - 1) * MAX_PROXIMITY_COST + 1;
  const proximity: Rank = { rank: proximityMax - proximityCost, max: proximityMax };

  const attributeCount = Math.max(1, texts.length > 0 ? Math.max(...texts.map((text) => text.rank)) + 1 : 1);
  const bestAttributes = considered.map((found) => Math.min(...found.map((occurrence) => occurrence.attributeRank)));
  const attributeMax = (attributeCount - 1) * considered.length + 1;
  const attribute: Rank = { rank: attributeMax - bestAttributes.reduce((sum, rank) => sum + rank, 0), max: attributeMax };

  const positionCost = considered.reduce((sum, found, index) => {
    const inBest = found.filter((occurrence) => occurrence.attributeRank === bestAttributes[index]);
    return sum + Math.min(MAX_POSITION_COST, ...inBest.map((occurrence) => occurrence.position));
  }, 0);
  const positionMax = considered.length * MAX_POSITION_COST + 1;
  const position: Rank = { rank: positionMax - positionCost, max: positionMax };

  const queryText = terms.map((term) => term.word).join(" ");
  let exactAttribute = 1;
  for (const text of texts) {
    for (const value of text.values) {
      const valueText = value.tokens.map((token) => token.normalised).join(" ");
      if (valueText === queryText) exactAttribute = 3;
      else if (valueText.startsWith(queryText) && exactAttribute < 2) exactAttribute = 2;
    }
  }
  const exactWords = considered.filter((found) => found.some((occurrence) => occurrence.match.exact)).length;

  return globalScore([
    words,
    typo,
    proximity,
    attribute,
    position,
    { rank: exactAttribute, max: 3 },
    { rank: exactWords + 1, max: terms.length + 1 },
  ]);
}

interface MarkedRange {
  start: number;
  end: number;
}

function matchedRanges(tokens: WordToken[], terms: QueryTerm[], settings: TypoToleranceSettings): Map<number, MarkedRange> {
  const ranges = new Map<number, MarkedRange>();
  tokens.forEach((token, index) => {
    for (const term of terms) {
      const match = matchTerm(term, token.normalised, settings, true);
      if (!match) continue;
      const length = match.prefixLength !== undefined ? Math.min(match.prefixLength, token.end - token.start) : token.end - token.start;
      ranges.set(index, { start: token.start, end: token.start + length });
      break;
    }
  });
  return ranges;
}

export interface FormatOptions {
  terms: QueryTerm[];
  typoTolerance: TypoToleranceSettings;
  highlight?: { pre: string; post: string };
  /** Words kept around the matches; undefined: no crop. */
  cropLength?: number;
  cropMarker: string;
}

/** One string formatted as Meilisearch formats it: cropped around the matches, then highlighted. */
export function formatText(text: string, options: FormatOptions): string {
  const tokens = tokenize(text);
  const ranges = matchedRanges(tokens, options.terms, options.typoTolerance);
  let from = 0;
  let to = text.length;
  let cutBefore = false;
  let cutAfter = false;
  if (options.cropLength !== undefined && tokens.length > options.cropLength) {
    const length = options.cropLength;
    if (length === 0) return "";
    let windowStart = 0;
    let bestCount = -1;
    for (let start = 0; start + length <= tokens.length; start++) {
      let count = 0;
      for (let index = start; index < start + length; index++) if (ranges.has(index)) count++;
      if (count > bestCount) {
        bestCount = count;
        windowStart = start;
      }
    }
    const matched = [...ranges.keys()].filter((index) => index >= windowStart && index < windowStart + length);
    if (matched.length > 0) {
      // the matched words in the middle of the window
      const span = matched[matched.length - 1] - matched[0] + 1;
      windowStart = Math.min(Math.max(0, matched[0] - Math.floor((length - span) / 2)), tokens.length - length);
    }
    const windowEnd = windowStart + length - 1;
    from = tokens[windowStart].start;
    to = tokens[windowEnd].end;
    cutBefore = windowStart > 0;
    cutAfter = windowEnd < tokens.length - 1;
  }
  let result = "";
  let cursor = from;
  if (options.highlight) {
    for (const range of ranges.values()) {
      if (range.start < from || range.end > to) continue;
      result += text.slice(cursor, range.start) + options.highlight.pre + text.slice(range.start, range.end) + options.highlight.post;
      cursor = range.end;
    }
  }
  result += text.slice(cursor, to);
  return `${cutBefore ? options.cropMarker : ""}${result}${cutAfter ? options.cropMarker : ""}`;
}
