/**
 * Text handling of the embedded index, in TypeScript: how queries and records are cut into words, which words of a
 * record become terms (typo correction, suggestions), how far a typed word may be from a term, and how a
 * ts_headline excerpt becomes safe HTML. PostgreSQL does the rest (stems, matching, ranking, excerpts).
 */
import type { SearchRecord } from "../../../domain/search-record";

/** Runs of letters, digits and combining marks: everything else (quotes, operators, emoji) only separates words. */
const WORD = /[\p{L}\p{N}\p{M}]+/gu;
/** Enough for any real word; longer runs are noise (and PostgreSQL does not index words over 2 KB). */
const MAX_WORD_LENGTH = 200;
const MAX_QUERY_WORDS = 32;
/** A record's terms: every word of its title, keywords and description, and its content's frequent words. */
const MAX_CONTENT_TERMS = 100;
const MAX_TERMS = 400;
/** As much of the content as the index reads (the generated column caps content at the same length). */
export const INDEXED_CONTENT_LENGTH = 100_000;

/** Delimiters of ts_headline's matches (private-use characters), turned into <mark> once the text is escaped. */
export const MARK_START = "\uE000";
export const MARK_STOP = "\uE001";
const SENTINELS = /[\uE000\uE001]/g;
// NUL cannot be stored in PostgreSQL text; the sentinels must not come from the record itself.
// eslint-disable-next-line no-control-regex -- NUL is exactly the character to remove
const UNSTORABLE = /[\u0000\uE000\uE001]/g;

export function wordsOf(text: string): string[] {
  return text.normalize("NFC").toLowerCase().match(WORD) ?? [];
}

/** The query's words, deduplicated, in order; the last one is being typed (a prefix). */
export function queryWords(text: string): string[] {
  const words = wordsOf(text).filter((word) => word.length <= MAX_WORD_LENGTH);
  const last = words.at(-1);
  const unique = [...new Set(words)].filter((word) => word !== last);
  return last === undefined ? [] : [...unique.slice(0, MAX_QUERY_WORDS - 1), last];
}

/** The record's text fields without characters PostgreSQL cannot store or the snippet markup relies on. */
export function storable(record: SearchRecord): SearchRecord {
  const clean = (text: string) => text.replace(UNSTORABLE, "");
  return {
    ...record,
    title: clean(record.title),
    keywords: record.keywords.map(clean),
    description: clean(record.description),
    content: clean(record.content),
    metadata: Object.fromEntries(Object.entries(record.metadata).map(([key, value]) => [clean(key), clean(value)])),
  };
}

export function termsOf(record: SearchRecord): string[] {
  const terms = new Set<string>();
  for (const text of [record.title, ...record.keywords, record.description]) {
    for (const word of wordsOf(text)) if (word.length >= 2 && word.length <= 40) terms.add(word);
  }
  const counts = new Map<string, number>();
  for (const word of wordsOf(record.content.slice(0, INDEXED_CONTENT_LENGTH))) {
    if (word.length >= 4 && word.length <= 40) counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  const frequent = [...counts]
    .filter(([, count]) => count >= 2)
    .sort(([a, countA], [b, countB]) => countB - countA || (a < b ? -1 : 1))
    .slice(0, MAX_CONTENT_TERMS);
  for (const [word] of frequent) terms.add(word);
  return [...terms].sort().slice(0, MAX_TERMS);
}

/** Typos tolerated in a word, as Meilisearch does by default: none under 5 letters, one up to 8, two from 9. */
export function typoBudget(word: string): number {
  const length = [...word].length;
  return length >= 9 ? 2 : length >= 5 ? 1 : 0;
}

/** Optimal string alignment distance (insertions, deletions, substitutions, adjacent transpositions). */
function editDistance(a: string[], b: string[]): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2][j - 2] + 1);
      rows[i][j] = best;
    }
  }
  return rows[a.length][b.length];
}

/** How many typos separate the typed word from the term; a prefix (the word being typed) from the term's start. */
export function typoDistance(word: string, term: string, prefix: boolean): number {
  const typed = [...word];
  const known = [...term];
  let best = editDistance(typed, known);
  if (prefix) {
    for (let length = Math.max(1, typed.length - 1); length <= typed.length + 1 && length < known.length; length++) {
      best = Math.min(best, editDistance(typed, known.slice(0, length)));
    }
  }
  return best;
}

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** A ts_headline excerpt as HTML: the record's text escaped, the matches in `<mark>…</mark>`. */
export function snippetHtml(headline: string): string {
  const escaped = headline.replace(/[&<>"']/g, (character) => HTML_ESCAPES[character]);
  return escaped.replace(/\uE000([^\uE000\uE001]*)\uE001/g, "<mark>$1</mark>").replace(SENTINELS, "");
}

/** The words ts_headline marked. */
export function markedWords(headline: string): string[] {
  return [...headline.matchAll(/\uE000([^\uE000\uE001]*)\uE001/g)].map((match) => match[1]);
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * The words of the record that the query's words match exactly or, for the last, as a prefix (as they appear in the
 * record), besides the stems ts_headline marked in the snippet: the highlights.
 */
export function highlightsOf(record: SearchRecord, marked: string[], slots: { words: string[]; prefix: boolean }[], max = 10): string[] {
  const fields = [record.title, record.keywords.join(" "), record.description, record.content.slice(0, INDEXED_CONTENT_LENGTH)];
  const found = [...marked];
  for (const slot of slots) {
    for (const word of slot.words) {
      const pattern = new RegExp(
        `(?<![\\p{L}\\p{N}\\p{M}])${escapeRegExp(word)}${slot.prefix ? "[\\p{L}\\p{N}\\p{M}]*" : "(?![\\p{L}\\p{N}\\p{M}])"}`,
        "iu",
      );
      for (const field of fields) {
        const match = pattern.exec(field);
        if (match) {
          found.push(match[0]);
          break;
        }
      }
    }
  }
  const seen = new Set<string>();
  return found
    .filter((word) => {
      const key = word.toLowerCase();
      if (word.trim() === "" || seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .slice(0, max);
}
