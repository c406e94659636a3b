import { contentWords } from "@study/ai";
import { AppError } from "@study/platform/errors";
import type { SourceDocument, SourceNote } from "../../../domain/study-material";
import { findDefinitions, type Definition } from "./definitions";
import { extractKeyTerms, type KeyTerm } from "./key-terms";
import { ARTICLES, tagUnits, type Token } from "./tagging";
import { buildTextUnits, type TextUnit } from "./text-units";
import { DEMONSTRATIVES } from "./vocabulary";

/** Below this many topic words, sentences or key terms there is nothing worth a card. */
const MIN_CONTENT_WORDS = 40;
const MIN_UNITS = 3;
const MIN_KEY_TERMS = 3;
/**
 * Ten key terms and one more per three sentences, up to eighty: no answer repeats in a set, so a set of fifty
 * needs fifty terms to ask about.
 */
const BASE_KEY_TERMS = 10;
const SENTENCES_PER_EXTRA_KEY_TERM = 3;
const MOST_KEY_TERMS = 80;

/** Everything the three generators read, computed once per request. */
export interface StudyText {
  units: TextUnit[];
  /** Best first. */
  terms: KeyTerm[];
  /** The key terms each unit mentions, by unit id. */
  termsByUnit: KeyTerm[][];
  /** Definitions of key terms, in text order. */
  definitions: Definition[];
  /** How much a unit says about the key terms, 0-1, by unit id (see informativeness). */
  informativeness: number[];
  /** Stop-word-free, plural-folded words of each unit, by unit id. */
  contentWordsByUnit: string[][];
  /** compromise's words of each unit's text, by unit id. */
  tokensByUnit: Token[][];
  /** Whether the unit is misrecognised speech rather than a sentence (see isGarbled), by unit id. */
  garbled: boolean[];
  /** Whether the unit mentions one of the request's focus areas, by unit id; all false without focus areas. */
  focus: boolean[];
}

/** Lets other work run (generation is CPU-bound) and stops if the caller aborted meanwhile. */
export async function checkpoint(signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  await new Promise<void>((resolve) => setImmediate(resolve));
  signal?.throwIfAborted();
}

const SPEAKER_PRONOUNS = new Set(["i", "we", "you", "he", "she", "let's"]);

/**
 * Whether a unit is speech the recogniser got wrong: English never puts an article right before a preposition,
 * conjunction or another determiner ("There for the in a and …", "Mr john guess what and then at leisure the of
 * it"), which misrecognised function words do all the time. Such a unit states no fact.
 */
export function isGarbled(tokens: readonly Token[]): boolean {
  return tokens.some((token, index) => {
    const next = tokens[index + 1];
    if (!ARTICLES.has(token.lower) || !next || token.endsPhrase) return false;
    return ["Preposition", "Conjunction", "Determiner"].some((tag) => next.tags.has(tag)) && !next.tags.has("Adjective") && !next.tags.has("Noun");
  });
}

/**
 * A unit's key-term weights summed, over the square root of its length (neither long nor one-word units win
 * by size); questions, fragments, overlong units and units that lean on the previous sentence ("It…",
 * "This…") or talk about the class ("I", "you") count less.
 */
function rawInformativeness(unit: TextUnit, terms: readonly KeyTerm[], words: readonly string[]): number {
  const weight = terms.reduce((sum, term) => sum + term.weight, 0) / Math.sqrt(Math.max(words.length, 1));
  const firstWord = unit.statement.split(/[\s,]/)[0].toLowerCase().replace(/'.*$/, "");
  const wordCount = unit.text.split(" ").length;
  let factor = 1;
  if (unit.text.trimEnd().endsWith("?")) factor *= 0.2;
  if (DEMONSTRATIVES.has(firstWord) || SPEAKER_PRONOUNS.has(firstWord)) factor *= 0.6;
  if (wordCount < 6) factor *= 0.3;
  else if (wordCount > 35) factor *= 0.7;
  return weight * factor;
}

function notEnoughContent(): AppError {
  return new AppError(
    "precondition",
    "NOT_ENOUGH_CONTENT",
    `The notes have too little text to generate study material from: at least ${MIN_CONTENT_WORDS} topic words and a few recurring terms are needed`,
  );
}

/**
 * Which units mention a focus area: all of the area's content words (plurals folded, in any order) are among the
 * unit's, so "the Krebs cycle" matches "… the cycle Krebs described …" and "Krebs cycles"; an area of stop
 * words only is looked for as written.
 */
function focusOfUnits(units: readonly TextUnit[], contentWordsByUnit: readonly string[][], focusAreas: readonly string[]): boolean[] {
  const areas = focusAreas
    .map((area) => area.trim())
    .filter(Boolean)
    .map((area) => ({ lower: area.toLowerCase(), words: contentWords(area) }));
  return units.map((unit, id) => {
    const words = new Set(contentWordsByUnit[id]);
    return areas.some((area) => (area.words.length ? area.words.every((word) => words.has(word)) : unit.text.toLowerCase().includes(area.lower)));
  });
}

/**
 * Splits the notes and documents into units, tags them, finds definitions and key terms, marks the units on a
 * focus area. NOT_ENOUGH_CONTENT when the text is too thin.
 */
export async function analyseNotes(
  notes: readonly SourceNote[],
  signal?: AbortSignal,
  more: { documents?: readonly SourceDocument[]; focusAreas?: readonly string[] } = {},
): Promise<StudyText> {
  await checkpoint(signal);
  const units = buildTextUnits(notes, more.documents);
  const contentWordsByUnit = units.map((unit) => contentWords(unit.text));
  const contentWordCount = contentWordsByUnit.reduce((sum, words) => sum + words.length, 0);
  if (units.length < MIN_UNITS || contentWordCount < MIN_CONTENT_WORDS) throw notEnoughContent();

  const tokensByUnit = await tagUnits(units, () => checkpoint(signal));
  await checkpoint(signal);
  const allDefinitions = findDefinitions(units, tokensByUnit);
  const limit = Math.min(MOST_KEY_TERMS, BASE_KEY_TERMS + Math.round(units.length / SENTENCES_PER_EXTRA_KEY_TERM));
  // Misrecognised: the recogniser said so (low confidence), or no English sentence reads so.
  const garbled = units.map((unit) => unit.unsure || isGarbled(tokensByUnit[unit.id]));
  // Misrecognised speech names nothing ("Mr john guess what …"): its words are no key terms.
  const heard = units.filter((unit) => !garbled[unit.id]);
  const terms = extractKeyTerms(
    heard,
    heard.map((unit) => tokensByUnit[unit.id]),
    allDefinitions,
    limit,
  );
  if (terms.length < MIN_KEY_TERMS) throw notEnoughContent();

  const termsByUnit: KeyTerm[][] = units.map(() => []);
  for (const term of terms) for (const unitId of term.unitIds) termsByUnit[unitId].push(term);
  const raw = units.map((unit) => (garbled[unit.id] ? 0 : rawInformativeness(unit, termsByUnit[unit.id], contentWordsByUnit[unit.id])));
  const highest = Math.max(...raw) || 1;
  const termKeys = new Set(terms.map((term) => term.key));
  await checkpoint(signal);
  return {
    units,
    terms,
    termsByUnit,
    definitions: allDefinitions.filter((definition) => termKeys.has(definition.termKey) && !garbled[definition.unitId]),
    informativeness: raw.map((value) => value / highest),
    contentWordsByUnit,
    tokensByUnit,
    garbled,
    focus: focusOfUnits(units, contentWordsByUnit, more.focusAreas ?? []),
  };
}
