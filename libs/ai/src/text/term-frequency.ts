import { ENGLISH_STOP_WORDS } from "./stop-words";
import { tokenizeWords } from "./words";

export interface ContentWordOptions {
  stopWords?: ReadonlySet<string>;
  locale?: string;
}

/** Singular nouns (or uncountables) that look like plurals. */
const SINGULAR_ENDING_IN_S = new Set([
  "species",
  "series",
  "news",
  "physics",
  "mathematics",
  "economics",
  "genetics",
  "politics",
  "ethics",
  "statistics",
  "linguistics",
  "electronics",
  "mechanics",
  "lens",
  "means",
  "always",
  "perhaps",
]);

/**
 * Folds regular English plurals onto their singular so "cells" and "cell" count as one term
 * ("studies" → "study", "classes" → "class", "cell's" → "cell"); words ending in -ss, -us, -is, short
 * words and a few singulars in -s ("species", "physics") are kept.
 */
export function normalizeTerm(word: string): string {
  if (word.endsWith("'s")) return word.slice(0, -2);
  if (word.length <= 3 || SINGULAR_ENDING_IN_S.has(word)) return word;
  if (word.endsWith("ies") && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(?:ss|sh|ch|x|z)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith("s") && !/(?:ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

/**
 * The topic-bearing words of a text in order: tokenised, stop words and one-letter words dropped, anything
 * without a letter (numbers) dropped, plurals folded with normalizeTerm.
 */
export function contentWords(text: string, options: ContentWordOptions = {}): string[] {
  const stopWords = options.stopWords ?? ENGLISH_STOP_WORDS;
  return tokenizeWords(text, options.locale)
    .filter((word) => word.length > 1 && /\p{L}/u.test(word) && !stopWords.has(word))
    .map(normalizeTerm);
}

/** How often each term occurs. */
export function termFrequencies(terms: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}

/** Term frequencies divided by the most frequent term's count: 1 for the top term, (0, 1] for the rest. */
export function normalizedTermFrequencies(terms: readonly string[]): Map<string, number> {
  const counts = termFrequencies(terms);
  const highest = Math.max(0, ...counts.values());
  return new Map(Array.from(counts, ([term, count]) => [term, count / highest]));
}

/** The `limit` most frequent terms, most frequent first; ties in alphabetical order, so the result is stable. */
export function topTerms(terms: readonly string[], limit: number): { term: string; count: number }[] {
  return Array.from(termFrequencies(terms), ([term, count]) => ({ term, count }))
    .sort((a, b) => b.count - a.count || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0))
    .slice(0, Math.max(0, limit));
}
