// What flashcards, questions and guide sections share: how they are scored, linked and worded.
import type { SourceReference } from "../../../domain/study-material";
import type { StudyText } from "./analysis";
import type { Definition } from "./definitions";
import { compareText } from "./deterministic";
import { depthFit, rarityFit, type DifficultyProfile } from "./difficulty-profile";
import { containsTerm, type KeyTerm } from "./key-terms";
import { capitalize } from "./prose";
import type { TextUnit } from "./text-units";

const BLANK = "_____";
/** A unit is a usable fact between these lengths, in words. */
const SHORTEST_FACT_WORDS = 6;
const LONGEST_FACT_WORDS = 40;

const wordCount = (text: string) => text.split(/\s+/).filter(Boolean).length;

export const sourceOf = (unit: TextUnit): SourceReference => ({ noteId: unit.noteId, startTime: unit.startTime });

/** Score shared by cards and questions: the kind the level prefers, a term of the right rarity, a fact at the right depth, an informative unit. */
export function candidateScore(text: StudyText, profile: DifficultyProfile, kindWeight: number, term: KeyTerm, unit: TextUnit): number {
  return kindWeight * (0.4 + 0.6 * rarityFit(profile, term.rarity)) * depthFit(profile, unit.position) * (0.5 + 0.5 * text.informativeness[unit.id]);
}

/** The key term a definition defines (analysis keeps only definitions of key terms). */
export function termOf(text: StudyText, definition: Definition): KeyTerm {
  return text.terms.find((term) => term.key === definition.termKey) as KeyTerm;
}

/** The term as a card names it, with its article and other name: "an enzyme", "ATP (adenosine triphosphate)". */
export function definedName(term: KeyTerm, definition: Definition): string {
  const name = definition.article ? `${definition.article} ${term.display}` : term.display;
  return definition.alias ? `${name} (${definition.alias})` : name;
}

/** Whether the unit can stand as a fact: sentence-sized, not a question. */
export function isFact(unit: TextUnit): boolean {
  const words = wordCount(unit.statement);
  return words >= SHORTEST_FACT_WORDS && words <= LONGEST_FACT_WORDS && !unit.statement.includes("?");
}

/** The key terms a unit mentions, without those it only mentions inside a longer one ("electron" in "electron transport chain"). */
export function standaloneTerms(text: StudyText, unitId: number): KeyTerm[] {
  const present = text.termsByUnit[unitId];
  return present.filter((term) => !present.some((other) => other !== term && containsTerm(other, term)));
}

/** The unit's term that best fits the level: frequent terms for EASY, rare ones for HARD. */
export function termToAskAbout(text: StudyText, unitId: number, profile: DifficultyProfile): KeyTerm | null {
  const ranked = standaloneTerms(text, unitId).sort(
    (a, b) => rarityFit(profile, b.rarity) - rarityFit(profile, a.rarity) || b.weight - a.weight || compareText(a.key, b.key),
  );
  return ranked[0] ?? null;
}

const globalPattern = (term: KeyTerm) => new RegExp(term.pattern.source, "giu");

/** The statement with every mention of the term blanked, and the term as the statement writes it. */
export function blankOut(statement: string, term: KeyTerm): { blanked: string; answer: string } | null {
  const match = term.pattern.exec(statement);
  if (!match) return null;
  return { blanked: statement.replace(globalPattern(term), BLANK), answer: match[0] };
}

/** Whether a written form is a plural ("enzymes" for "enzyme"). */
export function isPluralForm(term: KeyTerm, written: string): boolean {
  const lastWord = written.toLowerCase().split(/[\s\-–]+/).pop() ?? "";
  return lastWord !== term.words[term.words.length - 1] && /s$/.test(lastWord) && !/['’]s$/.test(lastWord);
}

/** The term as an answer option, in the plural when the blank it fills is plural. */
export function optionForm(term: KeyTerm, plural: boolean): string {
  return plural && term.pluralDisplay ? term.pluralDisplay : term.display;
}

/** Replaces every mention of `term` in `statement` by `replacement`, keeping a capital at the start and "a"/"an" agreement. */
export function swapTerm(statement: string, term: KeyTerm, replacement: string): string {
  const withArticle = new RegExp(`(\\b[Aa]n?\\s+)?(?:${term.pattern.source})`, "giu");
  return statement.replace(withArticle, (_match, article: string | undefined, offset: number) => {
    if (article) {
      const agreeing = /^[aeiou]/i.test(replacement) ? "an" : "a";
      return `${article.startsWith("A") ? capitalize(agreeing) : agreeing} ${replacement}`;
    }
    return offset === 0 ? capitalize(replacement) : replacement;
  });
}

/** Units mentioning a term within one unit of each other, over the rarer term's mentions: 1 when they always appear together. */
function proximity(a: KeyTerm, b: KeyTerm): number {
  const near = new Set(a.unitIds.flatMap((id) => [id - 1, id, id + 1]));
  const shared = b.unitIds.filter((id) => near.has(id)).length;
  return Math.min(1, shared / Math.max(1, Math.min(a.unitIds.length, b.unitIds.length)));
}

const lastLetters = (term: KeyTerm) => term.words[term.words.length - 1].slice(-3);

/** Similarities already worked out, per term object (so they go when the analysis goes). */
const similarities = new WeakMap<KeyTerm, Map<KeyTerm, number>>();

/**
 * How alike two terms are as answers, 0-1: same number of words and similar length, both acronyms or both
 * words, the same ending ("-sis", "-ase"), a shared word ("lactic acid fermentation" / "alcoholic
 * fermentation"), and mentioned near each other (same topic).
 */
export function similarity(a: KeyTerm, b: KeyTerm): number {
  let known = similarities.get(a);
  if (!known) similarities.set(a, (known = new Map()));
  let value = known.get(b);
  if (value === undefined) known.set(b, (value = computeSimilarity(a, b)));
  return value;
}

function computeSimilarity(a: KeyTerm, b: KeyTerm): number {
  const words = 1 - Math.abs(a.words.length - b.words.length) / Math.max(a.words.length, b.words.length);
  const length = 1 - Math.abs(a.display.length - b.display.length) / Math.max(a.display.length, b.display.length);
  const kind = a.isAcronym === b.isAcronym ? 1 : 0;
  const ending = lastLetters(a) === lastLetters(b) ? 1 : 0;
  const sharedWord = a.words.some((word) => b.words.includes(word)) ? 1 : 0;
  return 0.25 * words + 0.15 * length + 0.2 * kind + 0.1 * ending + 0.1 * sharedWord + 0.2 * proximity(a, b);
}

/** Terms that cannot stand in for each other: the same, or one inside the other. */
export const overlaps = (a: KeyTerm, b: KeyTerm) => a === b || containsTerm(a, b) || containsTerm(b, a);

/**
 * `count` other key terms to offer next to `answer`, none overlapping it, none mentioned in `visibleText`
 * (the question would give them away), all with distinct forms. EASY offers the least similar of the
 * better-known terms, MEDIUM a spread, HARD the most similar. Null when the text has too few terms.
 */
export function chooseDistractors(
  text: StudyText,
  answer: KeyTerm,
  profile: DifficultyProfile,
  options: { count: number; visibleText: string; plural: boolean },
): KeyTerm[] | null {
  const formOf = (term: KeyTerm) => optionForm(term, options.plural).toLowerCase();
  const answerForm = formOf(answer);
  const byKey = (a: { term: KeyTerm }, b: { term: KeyTerm }) => compareText(a.term.key, b.term.key);
  const mostSimilarFirst = text.terms
    .filter((term) => !overlaps(term, answer) && !term.pattern.test(options.visibleText) && formOf(term) !== answerForm)
    .map((term) => ({ term, similarity: similarity(answer, term) }))
    .sort((a, b) => b.similarity - a.similarity || byKey(a, b));

  let pool = mostSimilarFirst;
  if (profile.distractors === "least similar") {
    const familiarCount = Math.max(options.count * 2, Math.ceil(pool.length / 2));
    const familiar = [...pool].sort((a, b) => b.term.weight - a.term.weight || byKey(a, b)).slice(0, familiarCount);
    const leastSimilarFirst = familiar.sort((a, b) => a.similarity - b.similarity || byKey(a, b));
    pool = leastSimilarFirst.concat(pool.filter((entry) => !familiar.includes(entry)));
  } else if (profile.distractors === "spread") {
    pool = pool.filter((_, index) => index % 2 === 0).concat(pool.filter((_, index) => index % 2 === 1));
  }

  const chosen: KeyTerm[] = [];
  const forms = new Set([answerForm]);
  for (const { term } of pool) {
    const form = formOf(term);
    if (forms.has(form) || chosen.some((other) => overlaps(other, term))) continue;
    chosen.push(term);
    forms.add(form);
    if (chosen.length === options.count) return chosen;
  }
  return null;
}
